package protocol

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
