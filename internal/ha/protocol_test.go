package ha_test

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/netip"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/ha"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/internal/store/storetest"
)

// dialSlave connects a hand-driven slave to a master's Service.
func dialSlave(t *testing.T, svc *ha.Service) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", svc.Addr().String())
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func sendReport(t *testing.T, c net.Conn, off int64) {
	t.Helper()
	_, err := c.Write(ha.AppendReport(nil, off))
	require.NoError(t, err)
}

// requireClosedByPeer waits until the peer closes c (reads return EOF or a reset).
func requireClosedByPeer(t *testing.T, c net.Conn, within time.Duration) {
	t.Helper()
	require.NoError(t, c.SetReadDeadline(time.Now().Add(within)))
	_, err := io.Copy(io.Discard, c)
	if err != nil {
		require.False(t, errors.Is(err, os.ErrDeadlineExceeded), "the peer did not close the connection within %v", within)
	}
}

// A slave reporting 0 gets frames from the start of the master's newest segment: each a 12-byte
// header and at most haTransferBatchSize bytes equal to the master's log, contiguous, never
// crossing a segment; then heartbeats (empty frames at the master's end) while idle.
func TestMasterFramesAndHeartbeats(t *testing.T) {
	master := openStore(t, t.TempDir(), store.RoleAsyncMaster)
	put(t, master, "T", 0, 400, 500)
	opts := serviceOptions("127.0.0.1:0")
	opts.TransferBatchSize = 5000
	svc := startService(t, master, opts)
	end := master.CommitLogMaxOffset()
	newest := end - end%storetest.SegmentSize

	c := dialSlave(t, svc)
	sendReport(t, c, 0)
	next := newest
	for next < end {
		h, body := readFrame(t, c)
		require.Equal(t, next, h.MasterPhyOffset)
		require.Positive(t, h.BodySize, "data frames before the end")
		require.LessOrEqual(t, int(h.BodySize), 5000)
		require.Equal(t, h.MasterPhyOffset/storetest.SegmentSize, (h.End()-1)/storetest.SegmentSize, "a frame stays in one segment")
		d, ok := master.ReadCommitLog(h.MasterPhyOffset, len(body))
		require.True(t, ok)
		require.Equal(t, d.Bytes, body)
		d.Release()
		next = h.End()
	}
	require.Equal(t, end, next)
	for range 2 {
		h, body := readFrame(t, c)
		require.True(t, h.Heartbeat())
		require.Equal(t, end, h.MasterPhyOffset)
		require.Empty(t, body)
		sendReport(t, c, end) // acknowledging keeps the master's housekeeping happy
	}

	// New data follows at once.
	put(t, master, "T", 400, 1, 100)
	h, body := readFrame(t, c)
	require.Equal(t, end, h.MasterPhyOffset)
	require.Equal(t, master.CommitLogMaxOffset(), h.End())
	require.NotEmpty(t, body)
	sendReport(t, c, h.End())
	require.Eventually(t, func() bool { return svc.Push2SlaveMaxOffset() == h.End() }, waitFor, time.Millisecond)
}

// A slave reporting an offset gets data from exactly there.
func TestMasterStartsAtTheReportedOffset(t *testing.T) {
	master := openStore(t, t.TempDir(), store.RoleAsyncMaster)
	res := put(t, master, "T", 0, 300, 500)
	svc := startService(t, master, serviceOptions("127.0.0.1:0"))
	from := res[123].WroteOffset
	c := dialSlave(t, svc)
	sendReport(t, c, from)
	h, body := readFrame(t, c)
	require.Equal(t, from, h.MasterPhyOffset)
	d, ok := master.ReadCommitLog(from, len(body))
	require.True(t, ok)
	require.Equal(t, d.Bytes, body)
	d.Release()
}

// The master drops slaves it cannot serve or that break the protocol.
func TestMasterDropsBadSlaves(t *testing.T) {
	master := openStore(t, t.TempDir(), store.RoleAsyncMaster)
	put(t, master, "T", 0, 50, 100)
	opts := serviceOptions("127.0.0.1:0")
	opts.HousekeepingInterval = 300 * time.Millisecond
	opts.HeartbeatInterval = time.Minute
	svc := startService(t, master, opts)
	end := master.CommitLogMaxOffset()

	t.Run("ahead of the master", func(t *testing.T) {
		c := dialSlave(t, svc)
		sendReport(t, c, end+1000)
		requireClosedByPeer(t, c, waitFor)
	})
	t.Run("negative offset", func(t *testing.T) {
		c := dialSlave(t, svc)
		sendReport(t, c, -8)
		requireClosedByPeer(t, c, waitFor)
	})
	t.Run("acknowledges more than it got", func(t *testing.T) {
		c := dialSlave(t, svc)
		sendReport(t, c, 0)
		h, _ := readFrame(t, c)
		require.Equal(t, end, h.End())
		sendReport(t, c, end+1)
		requireClosedByPeer(t, c, waitFor)
		require.Less(t, svc.Push2SlaveMaxOffset(), end+1)
	})
	t.Run("silent for haHousekeepingInterval", func(t *testing.T) {
		c := dialSlave(t, svc)
		requireClosedByPeer(t, c, waitFor)
	})
	require.Eventually(t, func() bool { return len(svc.Slaves()) == 0 }, waitFor, time.Millisecond)
}

// The slave reports its end as soon as it connects (Java waits for the first heartbeat
// interval), after each batch, and as a heartbeat.
func TestSlaveReportsOnConnectAfterBatchesAndAsHeartbeat(t *testing.T) {
	src := openStore(t, t.TempDir(), store.RoleAsyncMaster)
	put(t, src, "T", 0, 20, 100)
	d, ok := src.ReadCommitLog(0, 1<<20)
	require.True(t, ok)
	data := bytes.Clone(d.Bytes)
	d.Release()

	m := newFakeMaster(t)
	slave := openStore(t, t.TempDir(), store.RoleSlave)
	cli := ha.NewClient(ha.ClientOptions{MasterAddr: m.ln.Addr().String(), HeartbeatInterval: time.Hour,
		HousekeepingInterval: time.Hour, ReconnectInterval: reconnect}, slave, logger(t))
	cli.Start()
	t.Cleanup(func() { _ = cli.Close() })

	c := m.accept(t)
	require.EqualValues(t, 0, readReport(t, c), "an empty slave reports 0 at once")
	_, err := c.Write(append(ha.AppendHeader(nil, ha.Header{MasterPhyOffset: 0, BodySize: int32(len(data))}), data...))
	require.NoError(t, err)
	require.EqualValues(t, len(data), readReport(t, c), "the slave acknowledges the batch")
	require.Eventually(t, func() bool { return slave.DispatchBehindBytes() == 0 && slave.MaxOffsetInQueue("T", 0) == 5 },
		waitFor, time.Millisecond, "the slave's dispatcher builds its queues from the replicated records")
	require.EqualValues(t, 0, cli.MasterOffset())

	// With a short heartbeat interval the slave reports while nothing arrives.
	hbCli := ha.NewClient(ha.ClientOptions{MasterAddr: m.ln.Addr().String(), HeartbeatInterval: 50 * time.Millisecond,
		HousekeepingInterval: time.Hour}, openStore(t, t.TempDir(), store.RoleSlave), logger(t))
	hbCli.Start()
	t.Cleanup(func() { _ = hbCli.Close() })
	hc := m.accept(t)
	for range 3 {
		require.EqualValues(t, 0, readReport(t, hc))
	}
}

// A frame that does not continue the slave's log makes it drop the connection, keep its log as
// it was, reconnect and report its end again; so does a master silent for haHousekeepingInterval.
func TestSlaveDropsMismatchAndSilence(t *testing.T) {
	src := openStore(t, t.TempDir(), store.RoleAsyncMaster)
	put(t, src, "T", 0, 20, 100)
	d, ok := src.ReadCommitLog(0, 1<<20)
	require.True(t, ok)
	data := bytes.Clone(d.Bytes)
	d.Release()

	m := newFakeMaster(t)
	slave := openStore(t, t.TempDir(), store.RoleSlave)
	startClient(t, slave, m.ln.Addr().String())
	c := m.accept(t)
	require.EqualValues(t, 0, readReport(t, c))
	_, err := c.Write(append(ha.AppendHeader(nil, ha.Header{MasterPhyOffset: 0, BodySize: int32(len(data))}), data...))
	require.NoError(t, err)
	end := int64(len(data))
	require.Eventually(t, func() bool { return slave.CommitLogMaxOffset() == end }, waitFor, time.Millisecond)

	_, err = c.Write(append(ha.AppendHeader(nil, ha.Header{MasterPhyOffset: end + 100, BodySize: 3}), 1, 2, 3))
	require.NoError(t, err)
	requireClosedByPeer(t, c, waitFor)
	require.Equal(t, end, slave.CommitLogMaxOffset(), "nothing of the mismatching frame is appended")

	c2 := m.accept(t)
	require.Equal(t, end, readReport(t, c2), "the slave reconnects and reports its end")
	// Silence: the slave gives up on this connection after haHousekeepingInterval.
	requireClosedByPeer(t, c2, waitFor)
	c3 := m.accept(t)
	require.Equal(t, end, readReport(t, c3))
}

// A new master address drops the current connection and connects to the new one at once; an
// empty one (the nameserver knows no master) is ignored.
func TestSlaveFollowsANewMasterAddress(t *testing.T) {
	m1, m2 := newFakeMaster(t), newFakeMaster(t)
	slave := openStore(t, t.TempDir(), store.RoleSlave)
	cli := ha.NewClient(ha.ClientOptions{HeartbeatInterval: heartbeat, HousekeepingInterval: time.Hour,
		ReconnectInterval: time.Hour}, slave, logger(t))
	cli.Start()
	t.Cleanup(func() { _ = cli.Close() })
	cli.SetMasterAddr(m1.ln.Addr().String())
	c1 := m1.accept(t)
	readReport(t, c1)
	require.Eventually(t, cli.Connected, waitFor, time.Millisecond)
	cli.SetMasterAddr("")
	require.Equal(t, m1.ln.Addr().String(), cli.MasterAddr())
	cli.SetMasterAddr(m2.ln.Addr().String())
	requireClosedByPeer(t, c1, waitFor)
	c2 := m2.accept(t)
	readReport(t, c2)
}

// A record that fails validation (here a body byte flipped after the CRC was computed) halts
// replication loudly: the slave keeps every record before it, appends nothing of it, and does not
// reconnect to fetch the same bytes again.
func TestSlaveHaltsOnABadRecord(t *testing.T) {
	src := openStore(t, t.TempDir(), store.RoleAsyncMaster)
	res := put(t, src, "T", 0, 20, 100)
	d, ok := src.ReadCommitLog(0, 1<<20)
	require.True(t, ok)
	data := bytes.Clone(d.Bytes)
	d.Release()
	badAt := res[12].WroteOffset
	data[badAt+int64(res[12].WroteBytes)-30] ^= 0xFF // inside the 100-byte body

	m := newFakeMaster(t)
	slave := openStore(t, t.TempDir(), store.RoleSlave)
	cli := startClient(t, slave, m.ln.Addr().String())
	c := m.accept(t)
	require.EqualValues(t, 0, readReport(t, c))
	_, err := c.Write(append(ha.AppendHeader(nil, ha.Header{MasterPhyOffset: 0, BodySize: int32(len(data))}), data...))
	require.NoError(t, err)
	requireClosedByPeer(t, c, waitFor)
	require.Eventually(t, func() bool { return cli.Halted() != nil }, waitFor, time.Millisecond)
	require.Equal(t, badAt, cli.Halted().Offset)
	require.Contains(t, cli.Halted().Reason, "CRC")
	require.Equal(t, badAt, slave.CommitLogMaxOffset(), "the log ends at the last good record")
	require.Eventually(t, func() bool {
		var n int64
		for q := int32(0); q < 4; q++ {
			n += slave.MaxOffsetInQueue("T", q)
		}
		return slave.DispatchBehindBytes() == 0 && n == 12
	}, waitFor, time.Millisecond, "the good records are served")
	select {
	case again := <-m.conns:
		_ = again.Close()
		t.Fatal("a halted slave reconnected")
	case <-time.After(20 * reconnect):
	}
}

// With AllowedPeers set, a connection from any other address is closed before it gets a byte;
// an allowed slave replicates as usual.
func TestMasterAdmitsOnlyAllowedPeers(t *testing.T) {
	master := openStore(t, t.TempDir(), store.RoleAsyncMaster)
	put(t, master, "T", 0, 10, 100)
	for _, tc := range []struct {
		allowed string
		admit   bool
	}{{"10.0.0.0/8", false}, {"127.0.0.1/32", true}} {
		opts := serviceOptions("127.0.0.1:0")
		opts.AllowedPeers = []netip.Prefix{netip.MustParsePrefix(tc.allowed)}
		svc := startService(t, master, opts)
		c := dialSlave(t, svc)
		sendReport(t, c, 0)
		if !tc.admit {
			require.NoError(t, c.SetReadDeadline(time.Now().Add(waitFor)))
			n, err := io.Copy(io.Discard, c)
			require.Zero(t, n, "a refused peer read CommitLog bytes")
			require.False(t, errors.Is(err, os.ErrDeadlineExceeded), "a refused peer stayed connected")
			require.Empty(t, svc.Slaves())
			continue
		}
		h, body := readFrame(t, c)
		require.EqualValues(t, 0, h.MasterPhyOffset)
		require.NotEmpty(t, body)
	}
}
