package protocol

import (
	"strconv"
	"strings"
	"sync"
)

// A Header is a typed custom header (Java's CommandCustomHeader): a struct of this package
// whose fields are a command's ext fields. Every header type in header_*.go implements it.
//
// Fields follow Java's declaration order, names and types (String is string, Integer int32,
// Long int64, Boolean bool). A field Java marks @CFNotNull is a plain value and always
// encoded; any other is an Opt, encoded only when Valid. Where this server is more lenient
// than Java (a field Java requires that it has always accepted without), the field is an Opt
// and its comment says so.
type Header interface {
	// Decode resets the header and fills it from ext in one pass over the fields. Names the
	// header does not declare are ignored. The first declared field, in declaration order,
	// that is required and missing or present and malformed is returned as a *FieldError;
	// the other fields are still filled.
	Decode(ext Ext) error
	// Encode sets the header's fields in ext, replacing values already there.
	Encode(ext *Ext)
}

// Opt is an optional header field (Java's nullable Integer, Long, Boolean or String):
// Valid is false when the field is absent.
type Opt[T any] struct {
	V     T
	Valid bool
}

// Some returns a present optional field.
func Some[T any](v T) Opt[T] { return Opt[T]{V: v, Valid: true} }

// Or returns the field's value, or def when it is absent.
func (o Opt[T]) Or(def T) T {
	if o.Valid {
		return o.V
	}
	return def
}

type codecMode uint8

const (
	modeIndex  codecMode = iota // learn the position of each of the header's fields
	modeDecode                  // parse the fields found into the header
	modeEncode                  // write the header's fields to out
)

// maxHeaderFields bounds the fields of one header type.
const maxHeaderFields = 32

// fieldCodec walks a header's fields, declared by its fields method in declaration order,
// decoding or encoding them. Decoding takes three steps: a walk that records each field's
// position by fieldID, one pass over the ext fields that keeps the text of each declared one,
// and a walk that parses them. It is pooled (the walk is a method value, through which a
// stack codec would escape), so a decode allocates nothing.
type fieldCodec struct {
	mode codecMode
	n    int                     // fields visited in this walk
	slot [numFieldIDs]uint8      // 1 + the position of each declared field; 0 elsewhere
	raw  [maxHeaderFields]string // the text of each present field, by position
	have uint32                  // which positions are present
	err  *FieldError             // the first problem met
	out  *Ext
}

var codecs = sync.Pool{New: func() any { return new(fieldCodec) }}

// decodeHeader decodes ext into the header whose fields method is walk.
func decodeHeader(ext Ext, walk func(*fieldCodec)) error {
	c := codecs.Get().(*fieldCodec)
	c.mode, c.n = modeIndex, 0
	walk(c)
	for i := range ext.fields {
		f := &ext.fields[i]
		if s := c.slot[f.id]; s != 0 {
			c.raw[s-1] = f.val
			c.have |= 1 << (s - 1)
		}
	}
	c.mode, c.n = modeDecode, 0
	walk(c)
	err := c.err
	c.reset()
	codecs.Put(c)
	if err != nil {
		return err
	}
	return nil
}

// encodeHeader writes the header whose fields method is walk into ext.
func encodeHeader(ext *Ext, walk func(*fieldCodec)) {
	c := codecs.Get().(*fieldCodec)
	c.mode, c.out = modeEncode, ext
	walk(c)
	c.out = nil
	codecs.Put(c)
}

// reset clears what a decode left, so that the codec holds no strings of it.
func (c *fieldCodec) reset() {
	c.slot = [numFieldIDs]uint8{}
	clear(c.raw[:c.n])
	c.have, c.err, c.n = 0, nil, 0
}

// at visits the next declared field and returns its text when decoding a present field. A
// required field that is missing is recorded.
func (c *fieldCodec) at(id fieldID, required bool) (string, bool) {
	i := c.n
	c.n++
	switch c.mode {
	case modeIndex:
		c.slot[id] = uint8(i + 1)
	case modeDecode:
		if c.have&(1<<i) != 0 {
			return c.raw[i], true
		}
		if required {
			c.fail(&FieldError{Field: fieldNames[id], Missing: true})
		}
	}
	return "", false
}

func (c *fieldCodec) fail(e *FieldError) {
	if c.err == nil {
		c.err = e
	}
}

// str is a required String.
func (c *fieldCodec) str(id fieldID, p *string) {
	if c.mode == modeEncode {
		c.out.put(id, *p)
	} else if v, ok := c.at(id, true); ok {
		*p = v
	}
}

// optStr is a nullable String.
func (c *fieldCodec) optStr(id fieldID, p *Opt[string]) {
	if c.mode == modeEncode {
		if p.Valid {
			c.out.put(id, p.V)
		}
	} else if v, ok := c.at(id, false); ok {
		*p = Some(v)
	}
}

// i32 is a required Integer.
func (c *fieldCodec) i32(id fieldID, p *int32) {
	if c.mode == modeEncode {
		c.out.putInt(id, int64(*p))
	} else if v, ok := c.at(id, true); ok {
		*p = int32(c.parseInt(id, v, 32))
	}
}

// optI32 is a nullable Integer.
func (c *fieldCodec) optI32(id fieldID, p *Opt[int32]) {
	if c.mode == modeEncode {
		if p.Valid {
			c.out.putInt(id, int64(p.V))
		}
	} else if v, ok := c.at(id, false); ok {
		*p = Some(int32(c.parseInt(id, v, 32)))
	}
}

// i64 is a required Long.
func (c *fieldCodec) i64(id fieldID, p *int64) {
	if c.mode == modeEncode {
		c.out.putInt(id, *p)
	} else if v, ok := c.at(id, true); ok {
		*p = c.parseInt(id, v, 64)
	}
}

// optI64 is a nullable Long.
func (c *fieldCodec) optI64(id fieldID, p *Opt[int64]) {
	if c.mode == modeEncode {
		if p.Valid {
			c.out.putInt(id, p.V)
		}
	} else if v, ok := c.at(id, false); ok {
		*p = Some(c.parseInt(id, v, 64))
	}
}

// boolean is a required Boolean.
func (c *fieldCodec) boolean(id fieldID, p *bool) {
	if c.mode == modeEncode {
		c.out.put(id, strconv.FormatBool(*p))
	} else if v, ok := c.at(id, true); ok {
		*p = parseBool(v)
	}
}

// optBool is a nullable Boolean.
func (c *fieldCodec) optBool(id fieldID, p *Opt[bool]) {
	if c.mode == modeEncode {
		if p.Valid {
			c.out.put(id, strconv.FormatBool(p.V))
		}
	} else if v, ok := c.at(id, false); ok {
		*p = Some(parseBool(v))
	}
}

// parseInt parses a present integer field; a malformed one is recorded and reads as 0.
func (c *fieldCodec) parseInt(id fieldID, v string, bits int) int64 {
	n, err := parseIntField(fieldNames[id], v, bits)
	if err != nil {
		c.fail(err)
	}
	return n
}

// parseIntField parses v as Java's Integer.parseInt or Long.parseLong do: plain decimals at
// once, anything else ('+', 19 digits, garbage) through strconv.
func parseIntField(name, v string, bits int) (int64, *FieldError) {
	if n, ok := parseDecimal(v); ok && (bits == 64 || n == int64(int32(n))) {
		return n, nil
	}
	n, err := strconv.ParseInt(v, 10, bits)
	if err == nil {
		return n, nil
	}
	reason := "is not a number"
	if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
		reason = "is out of range"
	}
	return 0, &FieldError{Field: name, Value: v, Reason: reason}
}

// parseBool is Java's Boolean.parseBoolean: only "true", in any case, is true.
func parseBool(v string) bool { return strings.EqualFold(v, "true") }
