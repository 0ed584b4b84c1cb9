package ha_test

import (
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/ha"
	"github.com/rocketgo/rocketgo/internal/store"

	"github.com/rocketgo/rocketgo/internal/store/storetest"
	"github.com/rocketgo/rocketgo/internal/vfs/vfstest"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

func putOne(st *store.Store, props map[string]string) store.PutResult {
	return st.PutMessage(storetest.Msg("T", 0, []byte("body"), props))
}

// SYNC_MASTER without a slave: a put that waits is stored but answered SLAVE_NOT_AVAILABLE at
// once; one with WAIT=false is PUT_OK. So is every put of an ASYNC_MASTER.
func TestSyncMasterWithoutSlave(t *testing.T) {
	master := openStore(t, t.TempDir(), store.RoleSyncMaster)
	r := putOne(master, nil)
	require.Equal(t, store.SlaveNotAvailable, r.Status, "no replication service at all")
	require.True(t, r.Status.Stored())
	require.NotEmpty(t, r.Remark)

	startService(t, master, serviceOptions("127.0.0.1:0"))
	r = putOne(master, nil)
	require.Equal(t, store.SlaveNotAvailable, r.Status, "no slave connected")
	require.Equal(t, store.PutOK, putOne(master, map[string]string{message.PropertyWaitStoreMsgOK: "false"}).Status)
	b := master.PutMessages(&store.Batch{Topic: "T", Body: batchBody()})
	require.Equal(t, store.SlaveNotAvailable, b.Status, "batches wait too")
	require.EqualValues(t, 2, b.MsgNum)

	async := openStore(t, t.TempDir(), store.RoleAsyncMaster)
	startService(t, async, serviceOptions("127.0.0.1:0"))
	require.Equal(t, store.PutOK, putOne(async, nil).Status)
}

// SYNC_MASTER with a slave: a put returns PUT_OK only once the slave has the message.
func TestSyncMasterWaitsForTheSlave(t *testing.T) {
	master := openStore(t, t.TempDir(), store.RoleSyncMaster)
	slave := openStore(t, t.TempDir(), store.RoleSlave)
	svc := startService(t, master, serviceOptions("127.0.0.1:0"))
	startClient(t, slave, svc.Addr().String())
	waitReported(t, svc)
	for i := range 200 {
		r := putOne(master, map[string]string{"KEYS": "k"})
		require.Equal(t, store.PutOK, r.Status, "put %d: %s", i, r.Remark)
		require.GreaterOrEqual(t, slave.CommitLogMaxOffset(), r.WroteOffset+int64(r.WroteBytes),
			"put %d acknowledged before the slave had it", i)
	}
	b := master.PutMessages(&store.Batch{Topic: "T", Body: batchBody()})
	require.Equal(t, store.PutOK, b.Status, b.Remark)
	require.GreaterOrEqual(t, slave.CommitLogMaxOffset(), b.WroteOffset+int64(b.WroteBytes))
}

// A slave that is connected but does not acknowledge within slaveTimeout gives
// FLUSH_SLAVE_TIMEOUT; one too far behind (haSlaveFallbehindMax) gives SLAVE_NOT_AVAILABLE.
func TestSyncMasterTimeoutAndFallingBehind(t *testing.T) {
	master := openStore(t, t.TempDir(), store.RoleSyncMaster)
	noWait := map[string]string{message.PropertyWaitStoreMsgOK: "false"}
	for range 100 {
		require.Equal(t, store.PutOK, putOne(master, noWait).Status)
	}
	opts := serviceOptions("127.0.0.1:0")
	opts.SlaveTimeout = 200 * time.Millisecond
	opts.SlaveFallbehindMax = 4096
	opts.HeartbeatInterval = time.Minute
	svc := startService(t, master, opts)

	// A mute slave: reports its start, then reads everything and acknowledges nothing.
	c := dialSlave(t, svc)
	sendReport(t, c, master.CommitLogMaxOffset())
	go func() { _, _ = io.Copy(io.Discard, c) }()
	waitReported(t, svc)
	r := putOne(master, nil)
	require.Equal(t, store.FlushSlaveTimeout, r.Status, r.Remark)
	require.True(t, r.Status.Stored())

	// Now far behind: more than haSlaveFallbehindMax past its last report.
	for range 100 {
		require.Equal(t, store.PutOK, putOne(master, noWait).Status)
	}
	require.Equal(t, store.SlaveNotAvailable, putOne(master, nil).Status)
}

// Closing the service answers the puts still waiting.
func TestSyncMasterCloseReleasesWaiters(t *testing.T) {
	master := openStore(t, t.TempDir(), store.RoleSyncMaster)
	opts := serviceOptions("127.0.0.1:0")
	opts.SlaveTimeout = time.Hour
	svc := startService(t, master, opts)
	c := dialSlave(t, svc)
	sendReport(t, c, 0)
	go func() { _, _ = io.Copy(io.Discard, c) }()
	waitReported(t, svc)
	done := make(chan store.PutResult, 1)
	go func() { done <- putOne(master, nil) }()
	require.Eventually(t, func() bool { return master.CommitLogMaxOffset() > 0 }, waitFor, time.Millisecond)
	require.NoError(t, svc.Close())
	select {
	case r := <-done:
		require.Equal(t, store.FlushSlaveTimeout, r.Status)
	case <-time.After(waitFor):
		t.Fatal("a waiting put was not answered when the service closed")
	}
}

// The replication status wins over the flush status (Java handleDiskFlushAndHA): with a sync
// slower than syncFlushTimeout and no slave, the answer is SLAVE_NOT_AVAILABLE.
func TestReplicationStatusWinsOverFlushTimeout(t *testing.T) {
	release := make(chan struct{})
	master := openStore(t, t.TempDir(), store.RoleSyncMaster, func(o *store.Options) {
		o.FlushType = store.SyncFlush
		o.SyncFlushTimeout = 50 * time.Millisecond
		fs := vfstest.NewAt(o.RootDir)
		fs.SetDiskUsage(storetest.NoDiskPressure)
		fs.Inject(vfstest.Rule{Kind: vfstest.OpMsync, Path: storetest.CommitLogSyncs, Before: func(vfstest.Op) { <-release }})
		o.FS = fs
	})
	t.Cleanup(func() { close(release) }) // before the store's own cleanup, which flushes
	startService(t, master, serviceOptions("127.0.0.1:0"))
	r := putOne(master, nil)
	require.Equal(t, store.SlaveNotAvailable, r.Status, r.Remark)
}

var _ store.Replicator = (*ha.Service)(nil)

func batchBody() []byte {
	b := message.AppendBatchEntry(nil, 0, []byte("a"), "")
	return message.AppendBatchEntry(b, 0, []byte("b"), "")
}
