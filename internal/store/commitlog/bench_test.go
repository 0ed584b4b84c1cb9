package commitlog

import (
	"testing"

	"go.uber.org/zap"
)

func benchLog(b *testing.B, ft FlushType) *CommitLog {
	b.Helper()
	o := testOpts(b.TempDir())
	o.SegmentSize = 128 << 20
	o.FlushType = ft
	o.Preallocate = true
	c, err := Open(o, zap.NewNop())
	if err != nil {
		b.Fatal(err)
	}
	if _, err := c.Recover(true, 0); err != nil {
		b.Fatal(err)
	}
	c.Start()
	b.Cleanup(func() { _ = c.Close() })
	return c
}

// BenchmarkCommitLogAppend appends 1 KiB messages: one goroutine, and many
// (where SYNC_FLUSH group commit shares each sync between puts).
func BenchmarkCommitLogAppend(b *testing.B) {
	for _, ft := range []FlushType{AsyncFlush, SyncFlush} {
		b.Run(ft.String(), func(b *testing.B) {
			c := benchLog(b, ft)
			m := msg("BenchTopic", 0, make([]byte, 1024), "TAGS\x01tagA\x02UNIQ_KEY\x017F0000010A2B18B4AAC2000000000000\x02")
			b.SetBytes(int64(m.EncodedSize()))
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if r := c.Append(m); r.Status != PutOK {
					b.Fatal(r.Err)
				}
			}
		})
		b.Run(ft.String()+"-parallel", func(b *testing.B) {
			c := benchLog(b, ft)
			b.SetParallelism(32)
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				m := msg("BenchTopic", 0, make([]byte, 1024), "TAGS\x01tagA\x02")
				b.SetBytes(int64(m.EncodedSize()))
				for pb.Next() {
					if r := c.Append(m); r.Status != PutOK {
						b.Error(r.Err)
						return
					}
				}
			})
		})
	}
}
