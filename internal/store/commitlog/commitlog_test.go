package commitlog

import (
	"bytes"
	"fmt"
	"net/netip"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"go.uber.org/zap/zaptest"

	"github.com/rocketgo/rocketgo/internal/vfs/vfstest"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const segSize = 64 << 10

var storeHost = netip.MustParseAddrPort("10.0.0.1:10911")

func testOpts(dir string) Options {
	return Options{Dir: dir, SegmentSize: segSize, StoreHost: storeHost, CheckCRCOnRecover: true}
}

func open(t *testing.T, o Options) *CommitLog {
	t.Helper()
	c, err := Open(o, zaptest.NewLogger(t))
	require.NoError(t, err)
	_, err = c.Recover(true, 0)
	require.NoError(t, err)
	c.Start()
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func msg(topic string, qid int32, body []byte, props string) *message.Message {
	return &message.Message{
		Topic: topic, QueueID: qid, Body: body, Properties: props,
		BornTimestamp: 1, BornHost: netip.MustParseAddrPort("192.168.0.2:5000"),
	}
}

func TestAppendAndRead(t *testing.T) {
	c := open(t, testOpts(t.TempDir()))
	var results []Result
	for i := range 10 {
		m := msg("T", int32(i%2), []byte(fmt.Sprintf("body-%d", i)), "TAGS\x01a\x02")
		r := c.Append(m)
		require.Equal(t, PutOK, r.Status, "%v", r.Err)
		require.EqualValues(t, i/2, r.QueueOffset)
		require.Equal(t, m.PhysicalOffset, r.WroteOffset)
		require.EqualValues(t, m.EncodedSize(), r.WroteBytes)
		if i > 0 {
			prev := results[i-1]
			require.Equal(t, prev.WroteOffset+int64(prev.WroteBytes), r.WroteOffset)
			require.GreaterOrEqual(t, r.StoreTimestamp, prev.StoreTimestamp)
		}
		results = append(results, r)
	}
	require.EqualValues(t, 5, c.QueueOffset("T", 0))
	for i, r := range results {
		got, err := c.Lookup(r.WroteOffset)
		require.NoError(t, err)
		require.Equal(t, fmt.Sprintf("body-%d", i), string(got.Body))
		require.Equal(t, storeHost, got.StoreHost)
		require.Equal(t, r.QueueOffset, got.QueueOffset)
		require.Equal(t, message.BodyCRC(got.Body), got.BodyCRC)
		require.Equal(t, r.StoreTimestamp, c.StoreTimestamp(r.WroteOffset, r.WroteBytes))
	}
	_, err := c.Lookup(c.MaxOffset())
	require.Error(t, err)
	require.EqualValues(t, -1, c.StoreTimestamp(1<<40, 100))
}

func TestAppendCrossesSegmentsWithBlank(t *testing.T) {
	c := open(t, testOpts(t.TempDir()))
	body := bytes.Repeat([]byte("x"), 1000)
	var offs []int64
	for range 200 {
		r := c.Append(msg("T", 0, body, ""))
		require.Equal(t, PutOK, r.Status)
		require.Equal(t, r.WroteOffset/segSize, (r.WroteOffset+int64(r.WroteBytes)-1)/segSize, "a record never spans segments")
		offs = append(offs, r.WroteOffset)
	}
	files := c.Queue().Files()
	require.Greater(t, len(files), 2)
	for _, f := range files[:len(files)-1] {
		// The last record of each full segment is followed by a BLANK to its end.
		var pos int64
		for {
			size, magic, _ := message.Peek(f.Bytes(pos, 8))
			if magic == message.MagicBlank {
				require.EqualValues(t, f.Size()-pos, size)
				break
			}
			require.Equal(t, message.MagicV1, magic)
			pos += int64(size)
		}
	}
	for i, off := range offs {
		m, err := c.Lookup(off)
		require.NoError(t, err)
		require.EqualValues(t, i, m.QueueOffset)
	}
}

func TestAppendTransactionsAndLimits(t *testing.T) {
	o := testOpts(t.TempDir())
	o.MaxMessageSize = 2000
	c := open(t, o)
	require.Equal(t, PutOK, c.Append(msg("T", 0, nil, "")).Status)
	for _, tran := range []int32{message.SysFlagTransactionPrep, message.SysFlagTransactionRoll} {
		m := msg("T", 0, nil, "")
		m.SysFlag = tran
		r := c.Append(m)
		require.Equal(t, PutOK, r.Status)
		require.Zero(t, r.QueueOffset)
	}
	m := msg("T", 0, nil, "")
	m.SysFlag = message.SysFlagTransactionCommit
	require.EqualValues(t, 1, c.Append(m).QueueOffset)

	r := c.Append(msg("T", 0, make([]byte, 2000), ""))
	require.Equal(t, MessageIllegal, r.Status)
	require.ErrorIs(t, r.Err, errTooLarge)
	r = c.Append(msg(string(make([]byte, 128)), 0, nil, ""))
	require.Equal(t, MessageIllegal, r.Status)
	r = c.Append(msg("T", 0, nil, string(make([]byte, 40000))))
	require.Equal(t, PropertiesSizeExceeded, r.Status)
	require.EqualValues(t, 2, c.QueueOffset("T", 0))
	require.Equal(t, "MESSAGE_ILLEGAL", MessageIllegal.String())
	require.True(t, FlushDiskTimeout.Stored())
	require.False(t, ServiceNotAvailable.Stored())
}

func batchBody(n, bodyLen int) []byte {
	var b []byte
	for i := range n {
		b = message.AppendBatchEntry(b, int32(i), bytes.Repeat([]byte{byte('a' + i%26)}, bodyLen), "KEYS\x01k\x02")
	}
	return b
}

func TestAppendBatch(t *testing.T) {
	c := open(t, testOpts(t.TempDir()))
	require.Equal(t, PutOK, c.Append(msg("B", 1, nil, "")).Status)
	for round := range 30 {
		b := &Batch{Topic: "B", QueueID: 1, Body: batchBody(8, 700), Properties: "CLUSTER\x01c\x02"}
		r := c.AppendBatch(b)
		require.Equal(t, PutOK, r.Status, "%v", r.Err)
		require.EqualValues(t, 8, r.MsgNum)
		require.EqualValues(t, 1+8*round, r.QueueOffset)
		require.Len(t, r.Offsets, 8)
		require.Equal(t, r.WroteOffset/segSize, (r.WroteOffset+int64(r.WroteBytes)-1)/segSize, "one segment per batch")
		for i, off := range r.Offsets {
			m, err := c.Lookup(off)
			require.NoError(t, err)
			require.EqualValues(t, r.QueueOffset+int64(i), m.QueueOffset)
			require.EqualValues(t, i, m.Flag)
			require.Equal(t, "c", m.Props["CLUSTER"])
			require.Equal(t, "k", m.Props["KEYS"])
			require.Equal(t, message.BodyCRC(m.Body), m.BodyCRC)
		}
	}
	for name, b := range map[string]*Batch{
		"malformed":   {Topic: "B", Body: []byte{0, 0, 0, 1}},
		"empty":       {Topic: "B"},
		"transaction": {Topic: "B", Body: batchBody(1, 1), SysFlag: message.SysFlagTransactionPrep},
		"too large":   {Topic: "B", Body: batchBody(100, 1000)},
	} {
		r := c.AppendBatch(b)
		require.Equal(t, MessageIllegal, r.Status, name)
	}
}

func TestSyncFlushGroupCommit(t *testing.T) {
	fs := vfstest.New(t)
	o := testOpts(fs.Root())
	o.FlushType, o.FS = SyncFlush, fs
	var syncs atomic.Int32
	gate := make(chan struct{})
	first := true
	fs.Inject(vfstest.Rule{Kind: vfstest.OpMsync, Before: func(vfstest.Op) {
		syncs.Add(1)
		if first {
			first = false
			<-gate
		}
	}})
	c := open(t, o)
	g := c.flusher.(*groupCommit)

	var wg sync.WaitGroup
	results := make([]Result, 11)
	wg.Add(1)
	go func() { defer wg.Done(); results[0] = c.Append(msg("T", 0, []byte("first"), "")) }()
	require.Eventually(t, func() bool { return syncs.Load() == 1 }, 5*time.Second, time.Millisecond)
	// While the first sync is stuck, ten more puts register.
	for i := 1; i <= 10; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); results[i] = c.Append(msg("T", 0, []byte("more"), "")) }()
	}
	require.Eventually(t, func() bool {
		g.wmu.Lock()
		defer g.wmu.Unlock()
		return len(g.waiters) == 10
	}, 5*time.Second, time.Millisecond)
	require.Less(t, c.FlushedOffset(), c.MaxOffset())
	close(gate)
	wg.Wait()
	for _, r := range results {
		require.Equal(t, PutOK, r.Status)
		require.GreaterOrEqual(t, c.FlushedOffset(), r.WroteOffset+int64(r.WroteBytes))
	}
	require.EqualValues(t, 2, syncs.Load(), "the ten waiting puts share one sync")
	require.Equal(t, c.MaxOffset(), c.ReadableOffset())
}

func TestSyncFlushTimeoutAndWaitFalse(t *testing.T) {
	fs := vfstest.New(t)
	o := testOpts(fs.Root())
	o.FlushType, o.FS = SyncFlush, fs
	o.SyncFlushTimeout = 50 * time.Millisecond
	gate := make(chan struct{})
	fs.Inject(vfstest.Rule{Kind: vfstest.OpMsync, Before: func(vfstest.Op) { <-gate }})
	c := open(t, o)

	r := c.Append(msg("T", 0, []byte("slow"), ""))
	require.Equal(t, FlushDiskTimeout, r.Status)
	require.Error(t, r.Err)
	r = c.Append(msg("T", 0, []byte("nowait"), "WAIT\x01false\x02"))
	require.Equal(t, PutOK, r.Status, "WAIT=false does not wait")
	require.Less(t, c.ReadableOffset(), c.MaxOffset(), "SYNC_FLUSH readers stop at the flushed offset")
	close(gate)
	require.Eventually(t, func() bool { return c.FlushedOffset() == c.MaxOffset() }, 5*time.Second, time.Millisecond)
	r = c.Append(msg("T", 0, []byte("fast"), "WAIT\x01TRUE\x02"))
	require.Equal(t, PutOK, r.Status)
	require.True(t, WaitStoreMsgOK(""))
	require.False(t, WaitStoreMsgOK("WAIT\x01no\x02"))
}

func TestFailedSyncPoisons(t *testing.T) {
	for _, ft := range []FlushType{SyncFlush, AsyncFlush} {
		t.Run(ft.String(), func(t *testing.T) {
			fs := vfstest.New(t)
			o := testOpts(fs.Root())
			o.FlushType, o.FS = ft, fs
			o.FlushInterval = time.Millisecond
			o.FlushLeastPages = 1
			var calls atomic.Int32
			fs.Inject(vfstest.Rule{Kind: vfstest.OpMsync, Before: func(vfstest.Op) { calls.Add(1) }, Err: syscall.EIO})
			var flushErrs atomic.Int32
			o.OnFlush = func(_ time.Duration, err error) {
				if err != nil {
					flushErrs.Add(1)
				}
			}
			c := open(t, o)
			r := c.Append(msg("T", 0, make([]byte, 5000), ""))
			if ft == SyncFlush {
				require.Equal(t, ServiceNotAvailable, r.Status)
				require.ErrorIs(t, r.Err, syscall.EIO)
			} else {
				require.Equal(t, PutOK, r.Status)
			}
			require.Eventually(t, func() bool { return !c.IsWritable() }, 5*time.Second, time.Millisecond)
			require.ErrorIs(t, c.Err(), syscall.EIO)
			require.Zero(t, c.FlushedOffset(), "a failed sync never advances the flushed offset")
			r = c.Append(msg("T", 0, nil, ""))
			require.Equal(t, ServiceNotAvailable, r.Status)
			require.ErrorContains(t, r.Err, "read-only")
			_, err := c.flush(0)
			require.Error(t, err)
			require.EqualValues(t, 1, calls.Load(), "a failed sync is never retried")
			require.EqualValues(t, 1, flushErrs.Load())
			require.NoError(t, c.Close())
		})
	}
}

func TestAsyncFlushCatchesUp(t *testing.T) {
	o := testOpts(t.TempDir())
	o.FlushInterval = 5 * time.Millisecond
	o.FlushThoroughInterval = 20 * time.Millisecond
	c := open(t, o)
	require.Equal(t, PutOK, c.Append(msg("T", 0, []byte("tiny"), "")).Status)
	require.Equal(t, c.MaxOffset(), c.ReadableOffset(), "ASYNC_FLUSH readers follow the written offset")
	require.Eventually(t, func() bool { return c.FlushedOffset() == c.MaxOffset() }, 5*time.Second, time.Millisecond,
		"the thorough flush syncs less than FlushLeastPages")
	select {
	case <-c.Readable():
	default:
		t.Fatal("no readable signal")
	}
}

func TestCloseThenPut(t *testing.T) {
	c := open(t, testOpts(t.TempDir()))
	require.NoError(t, c.Close())
	require.NoError(t, c.Close())
	r := c.Append(msg("T", 0, nil, ""))
	require.Equal(t, ServiceNotAvailable, r.Status)
	require.ErrorIs(t, r.Err, ErrClosed)
}

func TestAppendDoesNotAllocate(t *testing.T) {
	c := open(t, testOpts(t.TempDir()))
	m := msg("T", 0, make([]byte, 100), "TAGS\x01a\x02")
	c.Append(m)
	allocs := testing.AllocsPerRun(200, func() {
		if r := c.Append(m); r.Status != PutOK {
			t.Fatal(r.Err)
		}
	})
	require.Zero(t, allocs)
}

func TestSyncAppendDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items under the race detector")
	}
	o := testOpts(t.TempDir())
	o.FlushType = SyncFlush
	c := open(t, o)
	m := msg("T", 0, make([]byte, 100), "")
	for range 10 {
		c.Append(m)
	}
	allocs := testing.AllocsPerRun(200, func() {
		if r := c.Append(m); r.Status != PutOK {
			t.Fatal(r.Err)
		}
	})
	require.Less(t, allocs, 1.0)
}

func TestReopenKeepsEverything(t *testing.T) {
	dir := t.TempDir()
	o := testOpts(dir)
	o.Preallocate = true
	c, err := Open(o, zaptest.NewLogger(t))
	require.NoError(t, err)
	_, err = c.Recover(true, 0)
	require.NoError(t, err)
	c.Start()
	for range 150 {
		require.Equal(t, PutOK, c.Append(msg("T", 0, make([]byte, 1000), "")).Status)
	}
	end := c.MaxOffset()
	require.NoError(t, c.Close())
	entries, _ := os.ReadDir(dir)
	require.Len(t, entries, int(end/segSize)+1, "no preallocated leftover after Close")

	c2, err := Open(o, zaptest.NewLogger(t))
	require.NoError(t, err)
	defer c2.Close()
	st, err := c2.Recover(true, 0)
	require.NoError(t, err)
	require.Equal(t, end, st.End)
	require.Equal(t, end, c2.MaxOffset())
	require.Equal(t, end, c2.FlushedOffset())
	require.Equal(t, "end of data", st.Stopped)
	c2.Start()
	r := c2.Append(msg("T", 0, nil, ""))
	require.Equal(t, end, r.WroteOffset)
}
