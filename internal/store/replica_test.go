package store_test

import (
	"bytes"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/internal/store/commitlog"
	"github.com/rocketgo/rocketgo/internal/store/storetest"
	"github.com/rocketgo/rocketgo/internal/vfs/vfstest"
)

func roleOptions(dir string, role store.Role) store.Options {
	o := storetest.Options(dir)
	o.Role = role
	return o
}

// readAll copies the CommitLog [from, end) through ReadCommitLog.
func readAll(t *testing.T, s *store.Store, from int64) []byte {
	t.Helper()
	var out []byte
	for off := from; ; {
		d, ok := s.ReadCommitLog(off, 10000)
		if !ok {
			return out
		}
		require.Equal(t, off, d.Offset)
		require.LessOrEqual(t, len(d.Bytes), 10000)
		require.Equal(t, off/storetest.SegmentSize, (off+int64(len(d.Bytes))-1)/storetest.SegmentSize, "one segment per read")
		out = append(out, d.Bytes...)
		off += int64(len(d.Bytes))
		d.Release()
		d.Release() // idempotent
	}
}

// A slave's store appends raw CommitLog bytes only at its end (or a segment start when empty),
// across segments, dispatches them like puts, survives a restart, and refuses puts.
func TestSlaveAppendsReplicatedBytes(t *testing.T) {
	src := storetest.Open(t, storetest.Options(t.TempDir()))
	for i := range 800 {
		mustPut(t, src, storetest.Msg("T", int32(i%2), body(i, 300), map[string]string{"KEYS": "k"}))
	}
	waitDispatched(t, src)
	data := readAll(t, src, 0)
	require.Equal(t, src.CommitLogMaxOffset(), int64(len(data)))
	require.Greater(t, len(data), 3*storetest.SegmentSize)

	dir := t.TempDir()
	slave, err := store.Open(roleOptions(dir, store.RoleSlave), nil, nil)
	require.NoError(t, err)
	slave.Start()
	require.ErrorIs(t, slave.AppendCommitLog(100, data[:10]), commitlog.ErrNotAtEnd, "an empty log starts at a segment start")
	// Appends in uneven pieces, some crossing segment boundaries.
	for off := 0; off < len(data); {
		n := min(7777, len(data)-off)
		require.NoError(t, slave.AppendCommitLog(int64(off), data[off:off+n]))
		off += n
	}
	require.ErrorIs(t, slave.AppendCommitLog(5, data[:10]), commitlog.ErrNotAtEnd)
	require.NoError(t, slave.AppendCommitLog(int64(len(data)), nil))
	require.Equal(t, src.CommitLogMaxOffset(), slave.CommitLogMaxOffset())
	waitDispatched(t, slave)
	require.Equal(t, pullAll(t, src, "T", 1), pullAll(t, slave, "T", 1))

	r := slave.PutMessage(storetest.Msg("T", 0, []byte("x"), nil))
	require.Equal(t, store.ServiceNotAvailable, r.Status)
	require.Equal(t, store.ServiceNotAvailable, slave.PutMessages(&store.Batch{Topic: "T", Body: []byte{1}}).Status)
	require.ErrorIs(t, src.AppendCommitLog(src.CommitLogMaxOffset(), data[:1]), store.ErrNotSlave)

	require.NoError(t, slave.Close())
	require.ErrorIs(t, slave.AppendCommitLog(int64(len(data)), data[:1]), store.ErrClosed)
	_, ok := slave.ReadCommitLog(0, 10)
	require.False(t, ok)
	slave = storetest.Open(t, roleOptions(dir, store.RoleSlave))
	require.Equal(t, int64(len(data)), slave.CommitLogMaxOffset())
	require.Equal(t, data, readAll(t, slave, 0))
	require.Equal(t, pullAll(t, src, "T", 0), pullAll(t, slave, "T", 0))
}

// A slave never corrects a consumer's offset (Java offsetCheckInSlave=false); a master does.
func TestSlaveKeepsTheRequestedOffset(t *testing.T) {
	master := storetest.Open(t, storetest.Options(t.TempDir()))
	for i := range 10 {
		mustPut(t, master, storetest.Msg("T", 0, body(i, 100), nil))
	}
	waitDispatched(t, master)
	slave := storetest.Open(t, roleOptions(t.TempDir(), store.RoleSlave))
	require.NoError(t, slave.AppendCommitLog(0, readAll(t, master, 0)))
	waitDispatched(t, slave)

	for _, c := range []struct {
		topic      string
		offset     int64
		status     store.GetStatus
		masterNext int64
	}{
		{"T", 50, store.OffsetOverflowBadly, 10},
		{"T", 10, store.OffsetOverflowOne, 10},
		{"Nope", 7, store.NoMatchedLogicQueue, 0},
	} {
		mr := master.GetMessage("g", c.topic, 0, c.offset, 32, nil)
		sr := slave.GetMessage("g", c.topic, 0, c.offset, 32, nil)
		require.Equal(t, c.status, mr.Status)
		require.Equal(t, c.status, sr.Status)
		require.Equal(t, c.masterNext, mr.NextBeginOffset, "%s@%d on the master", c.topic, c.offset)
		require.Equal(t, c.offset, sr.NextBeginOffset, "%s@%d on the slave", c.topic, c.offset)
		mr.Release()
		sr.Release()
	}
	sr := slave.GetMessage("g", "T", 0, 3, 2, nil)
	require.Equal(t, store.Found, sr.Status)
	require.EqualValues(t, 5, sr.NextBeginOffset)
	sr.Release()
}

// Under SYNC_FLUSH ReadCommitLog stops at the flushed end: a slave never gets what the master's
// disk does not hold yet.
func TestReadCommitLogFollowsTheFlushedEndUnderSyncFlush(t *testing.T) {
	hold := make(chan struct{})
	o, fs := storetest.OnFS(t)
	o.FlushType = store.SyncFlush
	o.SyncFlushTimeout = 50 * time.Millisecond
	var blocking atomic.Bool
	fs.Inject(vfstest.Rule{Kind: vfstest.OpMsync, Path: storetest.CommitLogSyncs, Before: func(vfstest.Op) {
		if blocking.Load() {
			<-hold
		}
	}})
	s, err := store.Open(o, nil, nil)
	require.NoError(t, err)
	s.Start()
	t.Cleanup(func() { _ = s.Close() })
	mustPut(t, s, storetest.Msg("T", 0, []byte("durable"), nil))
	flushed := s.CommitLogMaxOffset()
	blocking.Store(true)
	r := s.PutMessage(storetest.Msg("T", 0, []byte("not yet"), nil))
	require.Equal(t, store.FlushDiskTimeout, r.Status)
	got := readAll(t, s, 0)
	require.Len(t, got, int(flushed))
	require.True(t, bytes.Contains(got, []byte("durable")))
	close(hold)
	require.Eventually(t, func() bool { return len(readAll(t, s, 0)) == int(s.CommitLogMaxOffset()) }, 5*time.Second, time.Millisecond)
}

// The roles print as brokerRole does.
func TestRoleNames(t *testing.T) {
	require.Equal(t, "ASYNC_MASTER", store.RoleAsyncMaster.String())
	require.Equal(t, "SYNC_MASTER", store.RoleSyncMaster.String())
	require.Equal(t, "SLAVE", store.RoleSlave.String())
	require.Equal(t, store.RoleSlave, storetest.Open(t, roleOptions(t.TempDir(), store.RoleSlave)).Role())
}
