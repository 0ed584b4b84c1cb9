package protocol

import (
	"cmp"
	"slices"
	"strings"
)

// addExt appends one decoded ext field. A key seen before keeps its place and takes the new
// value: the last duplicate wins, as in Java's HashMap. Known keys are found again by fieldID
// at once; other keys are deduplicated after the header has been read (dedupUnknown), so that
// a header with many fields costs O(n log n) at worst.
func (d *headerDecoder) addExt(key []byte, val text) {
	k, id, ok := knownExtKey(key)
	if !ok {
		k = d.toArena(key)
	}
	if id == fUnknown {
		d.unknown++
	} else if at := d.seen[id]; at != 0 {
		d.ext[at-1].val = val
		return
	} else {
		d.seen[id] = int32(len(d.ext) + 1)
	}
	d.ext = append(d.ext, rawField{key: k, val: val, id: id})
}

// clearExt forgets the ext fields read so far (a second extFields object replaces the first).
func (d *headerDecoder) clearExt() {
	d.ext = d.ext[:0]
	d.seen = [numFieldIDs]int32{}
	d.unknown = 0
}

// extFields returns the decoded ext fields with their strings in arena.
func (d *headerDecoder) extFields(arena string) Ext {
	if !d.extSet || len(d.ext) == 0 {
		return Ext{}
	}
	fields := d.room[:0]
	if len(d.ext) > cap(fields) {
		fields = make([]extField, 0, len(d.ext))
	}
	fields = fields[:len(d.ext)]
	for i, f := range d.ext {
		fields[i] = extField{key: f.key.in(arena), val: f.val.in(arena), id: f.id}
	}
	if d.unknown > 1 {
		fields = d.dedupUnknown(fields)
	}
	return Ext{fields: fields}
}

// dropped marks a field dedupUnknown removes.
const dropped = numFieldIDs

// dedupUnknown collapses repeated keys that are not known names: the first occurrence keeps
// its place and takes the last one's value. It sorts the positions of those keys, so a
// header of n fields costs O(n log n).
func (d *headerDecoder) dedupUnknown(fields []extField) []extField {
	order := d.order[:0]
	for i := range fields {
		if fields[i].id == fUnknown {
			order = append(order, int32(i))
		}
	}
	slices.SortFunc(order, func(a, b int32) int {
		if c := strings.Compare(fields[a].key, fields[b].key); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	removed := 0
	for r := 0; r < len(order); {
		e := r + 1
		for e < len(order) && fields[order[e]].key == fields[order[r]].key {
			fields[order[e]].id = dropped
			e++
		}
		fields[order[r]].val = fields[order[e-1]].val
		removed += e - r - 1
		r = e
	}
	d.order = order[:0]
	if removed == 0 {
		return fields
	}
	return slices.DeleteFunc(fields, func(f extField) bool { return f.id == dropped })
}
