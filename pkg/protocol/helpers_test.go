package protocol

import (
	"bytes"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readGolden reads testdata/golden/name: hex bytes, '#' lines are comments.
func readGolden(t testing.TB, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "golden", name))
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		sb.WriteString(strings.ReplaceAll(line, " ", ""))
	}
	b, err := hex.DecodeString(sb.String())
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return b
}

// goldenNames lists every golden frame file.
func goldenNames(t testing.TB) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join("testdata", "golden"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".hex") {
			names = append(names, e.Name())
		}
	}
	return names
}

// sameCommand compares the wire-visible parts of two commands; a nil and an
// empty map or body are the same.
func sameCommand(a, b *Command) bool {
	if a.Code != b.Code || a.Language != b.Language || a.Version != b.Version ||
		a.Opaque != b.Opaque || a.Flag != b.Flag || a.Remark != b.Remark ||
		a.SerializeType != b.SerializeType || a.ExtFields.Len() != b.ExtFields.Len() {
		return false
	}
	if !a.ExtFields.Equal(b.ExtFields) {
		return false
	}
	return bytes.Equal(flatBody(a), flatBody(b))
}

func flatBody(c *Command) []byte {
	out := append([]byte(nil), c.Body...)
	for _, p := range c.BodyParts {
		out = append(out, p...)
	}
	return out
}

// decodeWire decodes a whole frame, length field included.
func decodeWire(t testing.TB, wire []byte) *Command {
	t.Helper()
	if len(wire) < 4 {
		t.Fatalf("frame of %d bytes", len(wire))
	}
	cmd, err := DecodeCommand(wire[4:])
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	return cmd
}
