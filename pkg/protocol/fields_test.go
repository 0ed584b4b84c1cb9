package protocol

import (
	"errors"
	"testing"
)

func TestFieldsReadsAll(t *testing.T) {
	cmd := &Command{ExtFields: NewExt(map[string]string{
		"topic": "T", "queueId": "3", "offset": "-9000000000", "flag": "TRUE", "empty": "", "plus": "+5",
	})}
	f := Fields(cmd)
	if f.String("topic") != "T" || f.Int32("queueId") != 3 || f.Int64("offset") != -9000000000 ||
		!f.Bool("flag") || f.String("empty") != "" || f.Int32("plus") != 5 {
		t.Fatal("wrong values")
	}
	if f.OptString("none", "d") != "d" || f.OptInt32("none", -1) != -1 || f.OptInt64("none", 7) != 7 ||
		!f.OptBool("none", true) || f.OptInt32("queueId", 0) != 3 || f.OptBool("topic", true) {
		t.Fatal("wrong optional values")
	}
	if err := f.Err(); err != nil {
		t.Fatal(err)
	}
}

func TestFieldsStickyError(t *testing.T) {
	tests := []struct {
		name string
		read func(f *FieldReader)
		msg  string
	}{
		{"missing string", func(f *FieldReader) { f.String("topic") }, "the custom field <topic> is null"},
		{"missing int", func(f *FieldReader) { f.Int64("offset") }, "the custom field <offset> is null"},
		{"missing bool", func(f *FieldReader) { f.Bool("batch") }, "the custom field <batch> is null"},
		{"not a number", func(f *FieldReader) { f.Int32("bad") }, `the custom field <bad> is not a number: "x"`},
		{"empty number", func(f *FieldReader) { f.Int32("empty") }, `the custom field <empty> is not a number: ""`},
		{"optional malformed", func(f *FieldReader) { f.OptInt64("bad", 1) }, `the custom field <bad> is not a number: "x"`},
		{"out of range", func(f *FieldReader) { f.Int32("big") }, `the custom field <big> is out of range: "3000000000"`},
		{"first wins", func(f *FieldReader) { f.Int32("bad"); f.String("topic") }, `the custom field <bad> is not a number: "x"`},
	}
	for _, tt := range tests {
		f := Fields(&Command{ExtFields: NewExt(map[string]string{"bad": "x", "empty": "", "big": "3000000000", "ok": "1"})})
		tt.read(&f)
		// After the error every read gives the zero value.
		if f.Int32("ok") != 0 || f.OptString("none", "d") != "" || f.OptInt32("none", 5) != 0 || f.OptBool("none", true) {
			t.Errorf("%s: reads after the error are not zero", tt.name)
		}
		err := f.Err()
		var fe *FieldError
		if !errors.As(err, &fe) || err.Error() != tt.msg {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.msg)
		}
	}
}

func TestFieldsBoolIsJavaParseBoolean(t *testing.T) {
	f := Fields(&Command{ExtFields: NewExt(map[string]string{"a": "True", "b": "1", "c": "yes", "d": "false", "e": ""})})
	if !f.Bool("a") || f.Bool("b") || f.Bool("c") || f.Bool("d") || f.Bool("e") || f.Err() != nil {
		t.Fatal("parseBoolean semantics")
	}
}

func TestFieldsNilMap(t *testing.T) {
	f := Fields(&Command{})
	if f.OptInt32("queueId", 4) != 4 || f.Err() != nil {
		t.Fatal("optional on nil map")
	}
	f.String("topic")
	if f.Err() == nil {
		t.Fatal("required on nil map")
	}
}
