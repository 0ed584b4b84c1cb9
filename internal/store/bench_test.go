package store_test

import (
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

func benchStore(b *testing.B, ft store.FlushType) *store.Store {
	b.Helper()
	o := store.DefaultOptions(b.TempDir())
	o.CommitLogSegmentSize = 128 << 20
	o.FlushType = ft
	o.Preallocate = true
	o.MaxHashSlotNum, o.MaxIndexNum = 100_000, 400_000
	s, err := store.Open(o, zap.NewNop(), nil)
	if err != nil {
		b.Fatal(err)
	}
	s.Start()
	b.Cleanup(func() { _ = s.Close() })
	return s
}

func benchMsg() *store.Message {
	return &store.Message{Topic: "BenchTopic", Body: make([]byte, 1024),
		Properties: message.EncodeProperties(map[string]string{"TAGS": "tagA"})}
}

// BenchmarkPutMessage is a store put of a 1 KiB message.
func BenchmarkPutMessage(b *testing.B) {
	for _, ft := range []store.FlushType{store.AsyncFlush, store.SyncFlush} {
		b.Run(ft.String(), func(b *testing.B) {
			s := benchStore(b, ft)
			m := benchMsg()
			b.ReportAllocs()
			b.SetBytes(int64(len(m.Body)))
			for range b.N {
				if r := s.PutMessage(m); r.Status != store.PutOK {
					b.Fatal(r.Remark)
				}
			}
		})
	}
}

// BenchmarkGetMessage pulls batches of 32 messages of 1 KiB (served as slices
// of the mapped CommitLog, no copy).
func BenchmarkGetMessage(b *testing.B) {
	s := benchStore(b, store.AsyncFlush)
	m := benchMsg()
	const n = 20_000
	for range n {
		if r := s.PutMessage(m); r.Status != store.PutOK {
			b.Fatal(r.Remark)
		}
	}
	for s.DispatchBehindBytes() > 0 {
		time.Sleep(time.Millisecond)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		off := int64(i*32) % (n - 32)
		r := s.GetMessage("g", "BenchTopic", 0, off, 32, nil)
		if r.Status != store.Found || r.MessageCount() != 32 {
			b.Fatal(r.Status, r.MessageCount())
		}
		r.Release()
	}
}
