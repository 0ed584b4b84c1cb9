package ha_test

import (
	"bytes"
	"io"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/rocketgo/rocketgo/internal/ha"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/internal/store/storetest"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Fast intervals so that heartbeats, housekeeping and reconnects happen within a test.
const (
	heartbeat    = 100 * time.Millisecond
	housekeeping = 3 * time.Second
	reconnect    = 50 * time.Millisecond
	waitFor      = 15 * time.Second
)

func logger(t testing.TB) *zap.Logger { return zaptest.NewLogger(t, zaptest.Level(zap.WarnLevel)) }

// openStore opens and starts a store with role over dir; the test's cleanup closes it.
func openStore(t testing.TB, dir string, role store.Role, edits ...func(*store.Options)) *store.Store {
	t.Helper()
	o := storetest.Options(dir)
	o.Role = role
	for _, e := range edits {
		e(&o)
	}
	s, err := store.Open(o, logger(t), nil)
	require.NoError(t, err)
	s.Start()
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func serviceOptions(addr string) ha.ServiceOptions {
	return ha.ServiceOptions{ListenAddr: addr, HeartbeatInterval: heartbeat, HousekeepingInterval: housekeeping,
		SlaveTimeout: 2 * time.Second}
}

// startService starts a master's Service over st on addr ("127.0.0.1:0" for any port).
func startService(t testing.TB, st *store.Store, opts ha.ServiceOptions) *ha.Service {
	t.Helper()
	svc := ha.NewService(opts, st, logger(t))
	require.NoError(t, svc.Start())
	st.SetReplicator(svc)
	t.Cleanup(func() { _ = svc.Close() })
	return svc
}

// startClient starts a slave's Client over st following the master's HA address.
func startClient(t testing.TB, st *store.Store, masterAddr string) *ha.Client {
	t.Helper()
	c := ha.NewClient(ha.ClientOptions{MasterAddr: masterAddr, HeartbeatInterval: heartbeat,
		HousekeepingInterval: housekeeping, ReconnectInterval: reconnect}, st, logger(t))
	c.Start()
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// waitReported waits until a slave has connected to svc and reported its offset, so that the
// master's start offset for it does not depend on puts racing with the connect.
func waitReported(t *testing.T, svc *ha.Service) {
	t.Helper()
	require.Eventually(t, func() bool {
		for _, s := range svc.Slaves() {
			if s.AckOffset >= 0 {
				return true
			}
		}
		return false
	}, waitFor, time.Millisecond, "no slave reported to the master")
}

// put stores n messages spread over queues of topic; bodies carry their index from first on.
func put(t *testing.T, st *store.Store, topic string, first, n, size int) []store.PutResult {
	t.Helper()
	out := make([]store.PutResult, 0, n)
	for i := first; i < first+n; i++ {
		b := bytes.Repeat([]byte{'x'}, size)
		copy(b, "msg-"+strconv.Itoa(i)+"-")
		m := storetest.Msg(topic, int32(i%4), b, map[string]string{"KEYS": "k" + strconv.Itoa(i), "TAGS": "t"})
		r := st.PutMessage(m)
		require.Equal(t, store.PutOK, r.Status, r.Remark)
		out = append(out, r)
	}
	return out
}

// waitCaughtUp waits until the slave's CommitLog ends where the master's does and both have
// dispatched everything.
func waitCaughtUp(t *testing.T, master, slave *store.Store) {
	t.Helper()
	require.Eventually(t, func() bool {
		return slave.CommitLogMaxOffset() == master.CommitLogMaxOffset() && slave.DispatchBehindBytes() == 0 &&
			master.DispatchBehindBytes() == 0
	}, waitFor, 5*time.Millisecond, "slave at %d, master at %d", slave.CommitLogMaxOffset(), master.CommitLogMaxOffset())
}

// requireSameLog compares the two CommitLogs byte for byte from `from` to the master's end.
func requireSameLog(t *testing.T, master, slave *store.Store, from int64) {
	t.Helper()
	end := master.CommitLogMaxOffset()
	require.Equal(t, end, slave.CommitLogMaxOffset())
	for off := from; off < end; {
		md, ok := master.ReadCommitLog(off, 1<<20)
		require.True(t, ok, "master has nothing readable at %d", off)
		sd, ok := slave.ReadCommitLog(off, len(md.Bytes))
		require.True(t, ok, "slave has nothing readable at %d", off)
		require.Equal(t, len(md.Bytes), len(sd.Bytes), "at %d", off)
		if !bytes.Equal(md.Bytes, sd.Bytes) {
			t.Fatalf("the logs differ in [%d, %d)", off, off+int64(len(md.Bytes)))
		}
		off += int64(len(md.Bytes))
		md.Release()
		sd.Release()
	}
}

// pullBodies reads every message of a queue from st, from its min offset.
func pullBodies(t *testing.T, st *store.Store, topic string, qid int32) (first int64, bodies []string) {
	t.Helper()
	first = st.MinOffsetInQueue(topic, qid)
	for off := first; ; {
		r := st.GetMessage("g", topic, qid, off, 32, nil)
		require.NotNil(t, r)
		if r.Status != store.Found {
			r.Release()
			return first, bodies
		}
		for _, rec := range r.Records {
			m, err := message.Decode(rec, true)
			require.NoError(t, err)
			bodies = append(bodies, string(bytes.TrimRight(m.Body, "x")))
		}
		off = r.NextBeginOffset
		r.Release()
	}
}

// requireSameQueues checks that the slave serves what the master serves, queue by queue, from
// the slave's first entry on.
func requireSameQueues(t *testing.T, master, slave *store.Store, topic string) {
	t.Helper()
	for q := int32(0); q < 4; q++ {
		require.Equal(t, master.MaxOffsetInQueue(topic, q), slave.MaxOffsetInQueue(topic, q), "queue %d", q)
		sFirst, sBodies := pullBodies(t, slave, topic, q)
		_, mBodies := pullBodies(t, master, topic, q)
		mFirst := master.MinOffsetInQueue(topic, q)
		require.GreaterOrEqual(t, sFirst, mFirst)
		require.Equal(t, mBodies[sFirst-mFirst:], sBodies, "queue %d", q)
	}
}

// fakeMaster accepts slave connections and hands them to the test.
type fakeMaster struct {
	ln    net.Listener
	conns chan net.Conn
}

func newFakeMaster(t *testing.T) *fakeMaster {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	m := &fakeMaster{ln: ln, conns: make(chan net.Conn, 16)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			m.conns <- c
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		<-done
		close(m.conns)
		for c := range m.conns {
			_ = c.Close()
		}
	})
	return m
}

func (m *fakeMaster) accept(t *testing.T) net.Conn {
	t.Helper()
	select {
	case c := <-m.conns:
		t.Cleanup(func() { _ = c.Close() })
		return c
	case <-time.After(waitFor):
		t.Fatal("the slave did not connect")
		return nil
	}
}

// readReport reads one 8-byte report.
func readReport(t *testing.T, c net.Conn) int64 {
	t.Helper()
	require.NoError(t, c.SetReadDeadline(time.Now().Add(waitFor)))
	var b [ha.ReportSize]byte
	_, err := io.ReadFull(c, b[:])
	require.NoError(t, err)
	var d ha.ReportDecoder
	off, ok, err := d.Feed(b[:])
	require.NoError(t, err)
	require.True(t, ok)
	return off
}

// readFrame reads one master frame.
func readFrame(t *testing.T, c net.Conn) (ha.Header, []byte) {
	t.Helper()
	require.NoError(t, c.SetReadDeadline(time.Now().Add(waitFor)))
	var hb [ha.HeaderSize]byte
	_, err := io.ReadFull(c, hb[:])
	require.NoError(t, err)
	h, err := ha.DecodeHeader(hb[:])
	require.NoError(t, err)
	body := make([]byte, h.BodySize)
	_, err = io.ReadFull(c, body)
	require.NoError(t, err)
	return h, body
}
