package protocol

import (
	"iter"
	"slices"
	"strconv"
	"strings"
	"unsafe"
)

// Ext is a command's ext fields (Java's extFields): string keys and values, each key at most
// once, kept in the order they were first decoded or set. The decoders fill it without a map:
// the pairs point into the one string that holds the decoded header's text. Encoders write
// them sorted by key, whatever their order here. The zero value is empty and ready to use.
//
// Copying an Ext copies a reference to its pairs, as copying a map would; Clone makes an
// independent copy.
type Ext struct {
	fields []extField
	// text holds the digits of the numbers typed headers encode: their values alias it, so that
	// encoding a header allocates no string per number. Only Reset reuses it.
	text []byte
}

// extField is one pair; id is the key's fieldID when the key is a known name.
type extField struct {
	key, val string
	id       fieldID
}

// NewExt returns the fields of m (for tests and tools that send fields no typed header
// declares).
func NewExt(m map[string]string) Ext {
	if len(m) == 0 {
		return Ext{}
	}
	e := Ext{fields: make([]extField, 0, len(m))}
	for k, v := range m {
		e.Set(k, v)
	}
	return e
}

// Len returns the number of fields.
func (e Ext) Len() int { return len(e.fields) }

// Lookup returns the value of key and whether it is present.
func (e Ext) Lookup(key string) (string, bool) {
	if i := e.index(key); i >= 0 {
		return e.fields[i].val, true
	}
	return "", false
}

// Get returns the value of key, or "" when it is absent.
func (e Ext) Get(key string) string {
	v, _ := e.Lookup(key)
	return v
}

// Has reports whether key is present.
func (e Ext) Has(key string) bool { return e.index(key) >= 0 }

// Set sets key to value, replacing any value it had.
func (e *Ext) Set(key, value string) {
	id := lookupField(key)
	if i := e.find(id, key); i >= 0 {
		e.fields[i].val = value
		return
	}
	e.fields = append(e.fields, extField{key: key, val: value, id: id})
}

// Delete removes key, if present.
func (e *Ext) Delete(key string) {
	if i := e.index(key); i >= 0 {
		e.fields = slices.Delete(e.fields, i, i+1)
	}
}

// All yields every field, in the order they were first decoded or set.
func (e Ext) All() iter.Seq2[string, string] {
	return func(yield func(string, string) bool) {
		for _, f := range e.fields {
			if !yield(f.key, f.val) {
				return
			}
		}
	}
}

// Range calls fn for every field, in the order of All, until fn returns false.
func (e Ext) Range(fn func(key, value string) bool) {
	for _, f := range e.fields {
		if !fn(f.key, f.val) {
			return
		}
	}
}

// Map returns the fields as a new map (for tests and logs).
func (e Ext) Map() map[string]string {
	m := make(map[string]string, len(e.fields))
	for _, f := range e.fields {
		m[f.key] = f.val
	}
	return m
}

// Clone returns a copy that shares nothing with e.
func (e Ext) Clone() Ext {
	if e.fields == nil {
		return Ext{}
	}
	c := Ext{fields: append([]extField(nil), e.fields...)}
	if e.text != nil {
		for i := range c.fields {
			c.fields[i].val = strings.Clone(c.fields[i].val) // it may alias e.text
		}
	}
	return c
}

// Reset empties e and keeps its room, for a command that its owner reuses once the transport
// has released it: the values e held must not be used after it.
func (e *Ext) Reset() {
	clear(e.fields)
	e.fields = e.fields[:0]
	e.text = e.text[:0]
}

// Equal reports whether e and o hold the same fields, in any order.
func (e Ext) Equal(o Ext) bool {
	if len(e.fields) != len(o.fields) {
		return false
	}
	for _, f := range e.fields {
		if v, ok := o.Lookup(f.key); !ok || v != f.val {
			return false
		}
	}
	return true
}

// index returns the position of key, or -1.
func (e Ext) index(key string) int { return e.find(lookupField(key), key) }

// find returns the position of key, whose fieldID is id, or -1. A known name is matched by
// its fieldID.
func (e Ext) find(id fieldID, key string) int {
	if id != fUnknown {
		return e.indexID(id)
	}
	for i := range e.fields {
		if e.fields[i].key == key {
			return i
		}
	}
	return -1
}

// indexID returns the position of the known field id, or -1.
func (e Ext) indexID(id fieldID) int {
	for i := range e.fields {
		if e.fields[i].id == id {
			return i
		}
	}
	return -1
}

// put sets the known field id to value.
func (e *Ext) put(id fieldID, value string) {
	if i := e.indexID(id); i >= 0 {
		e.fields[i].val = value
		return
	}
	e.fields = append(e.fields, extField{key: fieldNames[id], val: value, id: id})
}

// putInt sets the known field id to the decimal text of v, kept in e.text.
func (e *Ext) putInt(id fieldID, v int64) {
	if v >= 0 && v < 100 {
		e.put(id, strconv.FormatInt(v, 10)) // strconv's own strings: no allocation
		return
	}
	start := len(e.text)
	e.text = strconv.AppendInt(e.text, v, 10)
	e.put(id, unsafe.String(&e.text[start], len(e.text)-start))
}
