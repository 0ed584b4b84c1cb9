package commitlog

import (
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/store/mmapfile"
)

// FuzzRecover damages a log with arbitrary bytes at an arbitrary place:
// recovery must never panic, must end at a record boundary it validated, and
// the log must accept appends there.
func FuzzRecover(f *testing.F) {
	f.Add(uint16(0), []byte{0xFF})
	f.Add(uint16(4), []byte{0xCB, 0xD4, 0x31, 0x94})
	f.Add(uint16(300), []byte{0, 0, 0, 0})
	f.Add(uint16(2000), []byte{0x7F, 0xFF, 0xFF, 0xFF, 0xDA, 0xA3, 0x20, 0xA7})
	f.Fuzz(func(t *testing.T, at uint16, garbage []byte) {
		dir := t.TempDir()
		o := testOpts(dir)
		c, err := Open(o, zap.NewNop())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Recover(true, 0); err != nil {
			t.Fatal(err)
		}
		var ends []int64
		for i := range 40 {
			r := c.Append(msg("F", int32(i%3), make([]byte, 50*(i%7)), "TAGS\x01x\x02"))
			ends = append(ends, r.WroteOffset+int64(r.WroteBytes))
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, mmapfile.FileName(0))
		fh, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fh.WriteAt(garbage[:min(len(garbage), segSize-int(at))], int64(at)); err != nil {
			t.Fatal(err)
		}
		fh.Close()

		c, err = Open(o, zap.NewNop())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		st, err := c.Recover(false, 0)
		if err != nil {
			t.Fatal(err)
		}
		boundary := st.End == 0
		for _, e := range ends {
			boundary = boundary || e == st.End
		}
		if !boundary {
			t.Fatalf("recovered end %d is not a record boundary", st.End)
		}
		c.Start()
		if r := c.Append(msg("F", 0, nil, "")); r.Status != PutOK || r.WroteOffset != st.End {
			t.Fatalf("append after recovery: %v at %d", r.Status, r.WroteOffset)
		}
	})
}
