package protocol

import "strconv"

// FieldError says which ext field was missing or malformed.
type FieldError struct {
	Field   string
	Value   string // the text found; empty when missing
	Missing bool
	Reason  string // "is not a number", "is out of range"; empty when missing
}

func (e *FieldError) Error() string {
	if e.Missing {
		return "the custom field <" + e.Field + "> is null"
	}
	return "the custom field <" + e.Field + "> " + e.Reason + ": " + strconv.Quote(e.Value)
}

// FieldReader reads a command's ext fields and keeps the first problem it
// meets (a sticky error). After an error every read returns the zero value.
type FieldReader struct {
	ext Ext
	err error
}

// Fields returns a reader over cmd's ext fields.
func Fields(cmd *Command) FieldReader {
	return FieldReader{ext: cmd.ExtFields}
}

// Err returns the first problem met, a *FieldError, or nil.
func (f *FieldReader) Err() error { return f.err }

func (f *FieldReader) fail(e *FieldError) {
	if f.err == nil {
		f.err = e
	}
}

// lookup returns the field's text; a missing required field is recorded.
func (f *FieldReader) lookup(key string, required bool) (string, bool) {
	if f.err != nil {
		return "", false
	}
	v, ok := f.ext.Lookup(key)
	if !ok && required {
		f.fail(&FieldError{Field: key, Missing: true})
	}
	return v, ok
}

// String returns a required string field (an empty value is allowed).
func (f *FieldReader) String(key string) string {
	v, _ := f.lookup(key, true)
	return v
}

// OptString returns an optional string field, or def when it is absent.
func (f *FieldReader) OptString(key, def string) string {
	if v, ok := f.lookup(key, false); ok {
		return v
	}
	if f.err != nil {
		return ""
	}
	return def
}

// Int32 returns a required int32 field (Java Integer.parseInt).
func (f *FieldReader) Int32(key string) int32 {
	return int32(f.int(key, true, 0, 32))
}

// OptInt32 returns an optional int32 field, or def when it is absent. A
// present but malformed value is still an error.
func (f *FieldReader) OptInt32(key string, def int32) int32 {
	return int32(f.int(key, false, int64(def), 32))
}

// Int64 returns a required int64 field (Java Long.parseLong).
func (f *FieldReader) Int64(key string) int64 {
	return f.int(key, true, 0, 64)
}

// OptInt64 returns an optional int64 field, or def when it is absent.
func (f *FieldReader) OptInt64(key string, def int64) int64 {
	return f.int(key, false, def, 64)
}

func (f *FieldReader) int(key string, required bool, def int64, bits int) int64 {
	v, ok := f.lookup(key, required)
	if !ok {
		if f.err != nil {
			return 0
		}
		return def
	}
	n, fe := parseIntField(key, v, bits)
	if fe != nil {
		f.fail(fe)
	}
	return n
}

// Bool returns a required boolean field with Java Boolean.parseBoolean
// semantics: only "true", in any case, is true.
func (f *FieldReader) Bool(key string) bool {
	v, _ := f.lookup(key, true)
	return parseBool(v)
}

// OptBool returns an optional boolean field, or def when it is absent.
func (f *FieldReader) OptBool(key string, def bool) bool {
	if v, ok := f.lookup(key, false); ok {
		return parseBool(v)
	}
	if f.err != nil {
		return false
	}
	return def
}
