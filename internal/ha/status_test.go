package ha_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/store"
)

// The figures the HA status reports: per slave, where the next frame starts and whether it is in
// sync; on the slave, the master in use and when bytes last went each way.
func TestRuntimeFigures(t *testing.T) {
	master := openStore(t, t.TempDir(), store.RoleAsyncMaster)
	slave := openStore(t, t.TempDir(), store.RoleSlave)
	svc := startService(t, master, serviceOptions("127.0.0.1:0"))
	before := time.Now().Add(-time.Second)
	cli := startClient(t, slave, svc.Addr().String())
	waitReported(t, svc)
	put(t, master, "T", 0, 200, 400)
	waitCaughtUp(t, master, slave)
	end := master.CommitLogMaxOffset()
	require.Eventually(t, func() bool {
		s := svc.Slaves()
		return len(s) == 1 && s[0].AckOffset == end
	}, waitFor, 5*time.Millisecond)

	s := svc.Slaves()[0]
	require.Equal(t, end, s.SentOffset, "the next frame starts at the master's end")
	require.True(t, svc.InSync(end, s.AckOffset))
	require.False(t, svc.InSync(end+ha256MiB, s.AckOffset), "256 MiB behind is not in sync")

	require.Equal(t, svc.Addr().String(), cli.MasterAddr())
	require.True(t, cli.LastRead().After(before), "last read %v", cli.LastRead())
	require.True(t, cli.LastWrite().After(before), "last write %v", cli.LastWrite())

	require.NoError(t, svc.Close())
	require.Eventually(t, func() bool { return !cli.Connected() && cli.LastRead().IsZero() }, waitFor, 5*time.Millisecond,
		"a lost connection clears the last read time, as Java's")
}

const ha256MiB = 256 << 20
