package store

import (
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/rocketgo/rocketgo/internal/store/consumequeue"
	"github.com/rocketgo/rocketgo/internal/store/mmapfile"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

func openSmall(t *testing.T) *Store {
	t.Helper()
	o := DefaultOptions(t.TempDir())
	o.CommitLogSegmentSize = 64 << 10
	o.CQEntriesPerFile = 1000
	o.MaxHashSlotNum, o.MaxIndexNum = 100, 400
	o.StoreHost = netip.MustParseAddrPort("127.0.0.1:10911")
	s, err := Open(o, zaptest.NewLogger(t), nil)
	require.NoError(t, err)
	s.Start()
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func put(t *testing.T, s *Store, topic string, n, size int) {
	t.Helper()
	for range n {
		r := s.PutMessage(&Message{Topic: topic, Body: make([]byte, size)})
		require.Equal(t, PutOK, r.Status, r.Remark)
	}
}

func TestGetMessageWasRemoving(t *testing.T) {
	s := openSmall(t)
	put(t, s, "T", 2, 10)
	put(t, s, "Filler", 150, 1000)
	require.Eventually(t, func() bool { return s.DispatchBehindBytes() == 0 }, 5*time.Second, time.Millisecond)
	// The CommitLog segment goes before the ConsumeQueues are corrected, as in
	// the middle of a cleanup.
	n, err := s.cl.Queue().DeleteFirst(1, func(*mmapfile.MappedFile) bool { return true })
	require.NoError(t, err)
	require.Equal(t, 1, n)
	r := s.GetMessage("g", "T", 0, 0, 32, nil)
	defer r.Release()
	require.Equal(t, MessageWasRemoving, r.Status, r.Status.String())
	require.EqualValues(t, 2, r.NextBeginOffset)
	require.Zero(t, r.MessageCount())
}

func TestGetOffsetFoundNull(t *testing.T) {
	s := openSmall(t)
	e := consumequeue.Entry{Offset: 0, Size: 100}
	require.NoError(t, s.cqs.put("Gap", 0, 0, e))
	require.NoError(t, s.cqs.put("Gap", 0, 3500, e)) // files for 1000..2999 are never created
	r := s.GetMessage("g", "Gap", 0, 1500, 32, nil)
	defer r.Release()
	require.Equal(t, OffsetFoundNull, r.Status, r.Status.String())
	require.EqualValues(t, 2000, r.NextBeginOffset)
	require.EqualValues(t, 3501, r.MaxOffset)
}

func TestGetResultHoldsSegments(t *testing.T) {
	s := openSmall(t)
	put(t, s, "T", 100, 1000) // about two segments
	require.Eventually(t, func() bool { return s.DispatchBehindBytes() == 0 }, 5*time.Second, time.Millisecond)
	r := s.GetMessage("g", "T", 0, 40, 32, nil)
	require.Equal(t, Found, r.Status)
	require.Len(t, r.files, 2, "one reference per segment the records span")
	first := r.files[0]
	// A deleted segment stays mapped for the result until it is released.
	_, err := s.cl.Queue().DeleteFirst(1, func(*mmapfile.MappedFile) bool { return true })
	require.NoError(t, err)
	require.False(t, first.Acquire(), "closing: no new readers")
	require.GreaterOrEqual(t, first.Refs(), int64(1), "the result still holds it")
	m, err := message.Decode(r.Records[0], true)
	require.NoError(t, err)
	require.EqualValues(t, 40, m.QueueOffset)
	r.Release()
	require.NoError(t, first.Wait())
}

func TestPutAndGetDoNotAllocate(t *testing.T) {
	s := openSmall(t)
	m := &Message{Topic: "T", Body: make([]byte, 1024), Properties: "TAGS\x01a\x02"}
	put(t, s, "T", 10, 10)
	require.Eventually(t, func() bool { return s.DispatchBehindBytes() == 0 }, 5*time.Second, time.Millisecond)
	allocs := testing.AllocsPerRun(200, func() {
		if r := s.PutMessage(m); r.Status != PutOK {
			t.Fatal(r.Remark)
		}
	})
	require.Zero(t, allocs, "put")
	if raceEnabled {
		t.Skip("sync.Pool drops items under the race detector")
	}
	allocs = testing.AllocsPerRun(200, func() {
		r := s.GetMessage("g", "T", 0, 0, 8, nil)
		if r.Status != Found {
			t.Fatal(r.Status)
		}
		r.Release()
	})
	require.Zero(t, allocs, "get")
}
