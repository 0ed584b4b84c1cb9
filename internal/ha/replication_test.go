package ha_test

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/internal/store/storetest"
)

// A slave following from the start gets the master's CommitLog byte for byte across many
// segments, builds the same ConsumeQueues and index from it, and refuses puts.
func TestReplicationAcrossManySegments(t *testing.T) {
	master := openStore(t, t.TempDir(), store.RoleAsyncMaster)
	slave := openStore(t, t.TempDir(), store.RoleSlave)
	svc := startService(t, master, serviceOptions("127.0.0.1:0"))
	cli := startClient(t, slave, svc.Addr().String())
	waitReported(t, svc)

	put(t, master, "T", 0, 3000, 400)
	require.Greater(t, master.CommitLogMaxOffset(), 20*int64(storetest.SegmentSize), "the test must cross many segments")
	waitCaughtUp(t, master, slave)
	requireSameLog(t, master, slave, 0)
	requireSameQueues(t, master, slave, "T")
	require.True(t, cli.Connected())
	require.Eventually(t, func() bool { return svc.Push2SlaveMaxOffset() == master.CommitLogMaxOffset() }, waitFor, 5e6)
	slaves := svc.Slaves()
	require.Len(t, slaves, 1)
	require.Equal(t, master.CommitLogMaxOffset(), slaves[0].AckOffset)

	// The slave's own index finds messages by key.
	qr := slave.QueryMessage("T", "k1234", 10, 0, math.MaxInt64)
	require.Len(t, qr.Records, 1)
	qr.Release()

	// A slave's store takes no puts.
	r := slave.PutMessage(storetest.Msg("T", 0, []byte("x"), nil))
	require.Equal(t, store.ServiceNotAvailable, r.Status)
	require.Contains(t, r.Remark, "SLAVE")
	require.ErrorIs(t, master.AppendCommitLog(master.CommitLogMaxOffset(), []byte("x")), store.ErrNotSlave)
}

// An empty slave reports 0 and gets the master's data from the start of the master's newest
// segment on, as Java's master sends it; it then follows new puts.
func TestEmptySlaveStartsAtTheMastersNewestSegment(t *testing.T) {
	master := openStore(t, t.TempDir(), store.RoleAsyncMaster)
	put(t, master, "T", 0, 1000, 400)
	end := master.CommitLogMaxOffset()
	newest := end - end%storetest.SegmentSize
	require.Greater(t, newest, int64(0))

	slave := openStore(t, t.TempDir(), store.RoleSlave)
	svc := startService(t, master, serviceOptions("127.0.0.1:0"))
	startClient(t, slave, svc.Addr().String())
	waitCaughtUp(t, master, slave)
	require.Equal(t, newest, slave.CommitLogMinOffset())
	requireSameLog(t, master, slave, newest)

	put(t, master, "T", 1000, 500, 400)
	waitCaughtUp(t, master, slave)
	requireSameLog(t, master, slave, newest)
	requireSameQueues(t, master, slave, "T")
}

// A master whose data fits in its first segment gives an empty slave everything from offset 0.
func TestEmptySlaveGetsEverythingFromZero(t *testing.T) {
	master := openStore(t, t.TempDir(), store.RoleAsyncMaster)
	put(t, master, "T", 0, 40, 200)
	require.Less(t, master.CommitLogMaxOffset(), int64(storetest.SegmentSize))
	slave := openStore(t, t.TempDir(), store.RoleSlave)
	svc := startService(t, master, serviceOptions("127.0.0.1:0"))
	startClient(t, slave, svc.Addr().String())
	waitCaughtUp(t, master, slave)
	require.Zero(t, slave.CommitLogMinOffset())
	requireSameLog(t, master, slave, 0)
	requireSameQueues(t, master, slave, "T")
}

// Replication survives a restart of the master, a clean restart of the slave and a crash of the
// slave (its store recovered from a copy taken while it ran, abort file included).
func TestRestartOfEitherSide(t *testing.T) {
	mdir, sdir := t.TempDir(), t.TempDir()
	master := openStore(t, mdir, store.RoleAsyncMaster)
	slave := openStore(t, sdir, store.RoleSlave)
	svc := startService(t, master, serviceOptions("127.0.0.1:0"))
	addr := svc.Addr().String()
	cli := startClient(t, slave, addr)
	waitReported(t, svc)
	next := 0
	round := func(n int) {
		t.Helper()
		put(t, master, "T", next, n, 700)
		next += n
		waitCaughtUp(t, master, slave)
		requireSameLog(t, master, slave, 0)
		requireSameQueues(t, master, slave, "T")
	}
	round(300)

	// The master restarts on the same address; the slave reconnects by itself.
	require.NoError(t, svc.Close())
	require.NoError(t, master.Close())
	master = openStore(t, mdir, store.RoleAsyncMaster)
	_ = startService(t, master, serviceOptions(addr))
	round(300)

	// The slave restarts cleanly and continues from its own end.
	require.NoError(t, cli.Close())
	require.NoError(t, slave.Close())
	slave = openStore(t, sdir, store.RoleSlave)
	cli = startClient(t, slave, addr)
	round(300)

	// The slave crashes: a copy of its running store recovers abnormally and continues.
	crashed := t.TempDir()
	storetest.CopyDir(t, sdir, crashed)
	require.NoError(t, cli.Close())
	require.NoError(t, slave.Close())
	slave = openStore(t, crashed, store.RoleSlave, func(o *store.Options) { o.CommitLogDir = filepath.Join(crashed, "commitlog") })
	require.False(t, slave.Recovery().Clean)
	startClient(t, slave, addr)
	round(300)
}
