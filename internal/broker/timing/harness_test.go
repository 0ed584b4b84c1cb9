package timing

import (
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/internal/store/storetest"
	"github.com/rocketgo/rocketgo/internal/vfs/vfstest"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// clock is a test clock that never runs behind the store's (real) one: it starts at the real
// time and moves only forward, by the test.
type clock struct{ ms atomic.Int64 }

func newClock() *clock {
	c := &clock{}
	c.ms.Store(time.Now().UnixMilli())
	return c
}

func (c *clock) now() time.Time { return time.UnixMilli(max(c.ms.Load(), time.Now().UnixMilli())) }

// at moves the clock to ms (never back).
func (c *clock) at(ms int64) { c.ms.Store(max(ms, c.ms.Load())) }

func (c *clock) millis() int64 { return c.now().UnixMilli() }

type topicsStub map[string]bool

func (t topicsStub) Get(topic string) (body.TopicConfig, bool) {
	return body.TopicConfig{TopicName: topic}, t[topic]
}

// rig is a store and a timing service on it, driven step by step (the goroutine is not started).
type rig struct {
	t    *testing.T
	dir  string
	so   store.Options
	st   *store.Store
	svc  *Service
	clk  *clock
	opts Options
	stop chan struct{}
	put  *gatedStore
}

func testOptions(dir string, clk *clock) Options {
	return Options{RootDir: dir, Enable: true, PrecisionMs: 100, MaxDelaySec: 3600, RollWindowSlots: 600,
		FlushInterval: time.Hour, LogSegmentSize: 4096, BrokerName: "broker-a", RecallEnable: true,
		BrokerPermission: body.PermRead | body.PermWrite, Now: clk.now}
}

func newRig(t *testing.T) *rig {
	dir := t.TempDir()
	clk := newClock()
	r := &rig{t: t, dir: dir, so: storetest.Options(dir), clk: clk, opts: testOptions(dir, clk), stop: make(chan struct{})}
	r.open()
	return r
}

// open opens the store and the service on r.dir.
func (r *rig) open() {
	r.t.Helper()
	r.st = storetest.Open(r.t, r.so)
	r.put = &gatedStore{Store: r.st}
	svc, err := New(r.opts, Deps{Store: r.put, Topics: topicsStub{"T": true}}, zaptest.NewLogger(r.t))
	require.NoError(r.t, err)
	r.svc = svc
	r.t.Cleanup(func() { svc.Close() })
}

// newRigOnFS is newRig with the store and the timer files on a vfstest.FS (for power losses).
func newRigOnFS(t *testing.T) (*rig, *vfstest.FS) {
	so, fs := storetest.OnFS(t)
	clk := newClock()
	r := &rig{t: t, dir: fs.Root(), so: so, clk: clk, opts: testOptions(fs.Root(), clk), stop: make(chan struct{})}
	r.opts.FS = fs
	r.open()
	return r, fs
}

// powerLoss keeps what a power loss would of the files on fs and opens the store and the service
// there.
func (r *rig) powerLoss(fs *vfstest.FS) {
	r.t.Helper()
	so, after := storetest.AfterPowerLoss(r.t, fs, r.so)
	r.so, r.dir, r.opts.RootDir, r.opts.FS = so, after.Root(), after.Root(), after
	r.stop = make(chan struct{})
	r.open()
}

// crash copies the files as they are now (the page cache a kill -9 leaves) to a new directory
// and opens the store and the service there; the old ones are closed without their files being
// touched again.
func (r *rig) crash() {
	r.t.Helper()
	dst := r.t.TempDir()
	storetest.CopyDir(r.t, r.dir, dst)
	r.dir, r.so.RootDir, r.opts.RootDir = dst, dst, dst
	r.so.CommitLogDir = ""
	r.stop = make(chan struct{})
	r.open()
}

// send stores a message for topic T as a producer would, with extra properties.
func (r *rig) send(key string, props map[string]string) store.PutResult {
	r.t.Helper()
	all := map[string]string{message.PropertyKeys: key, message.PropertyUniqClientMessageID: "ID-" + key}
	for k, v := range props {
		all[k] = v
	}
	m := storetest.Msg("T", 0, []byte("body-"+key), all)
	_, err := r.svc.Divert(m)
	require.NoError(r.t, err)
	res := r.st.PutMessage(m)
	require.True(r.t, res.Status.Stored(), "%v", res.Status)
	return res
}

// sendAt sends a message due at ms (TIMER_DELIVER_MS).
func (r *rig) sendAt(key string, ms int64) {
	r.send(key, map[string]string{message.PropertyTimerDeliverMS: strconv.FormatInt(ms, 10)})
}

// step waits until the store dispatched everything, then runs one step of the loop.
func (r *rig) step() {
	r.t.Helper()
	require.Eventually(r.t, func() bool { return r.st.DispatchBehindBytes() == 0 }, 5*time.Second, time.Millisecond)
	r.svc.step(r.stop)
}

// settle steps until the CommitLog is flushed past the pending checkpoint and it is written.
func (r *rig) settle() {
	r.t.Helper()
	require.Eventually(r.t, func() bool {
		r.step()
		return r.svc.loop.cand == nil
	}, 5*time.Second, 5*time.Millisecond)
}

// delivered is every message in T's queue 0: key → store time and properties.
func (r *rig) delivered() []*message.MessageExt {
	r.t.Helper()
	require.Eventually(r.t, func() bool { return r.st.DispatchBehindBytes() == 0 }, 5*time.Second, time.Millisecond)
	var out []*message.MessageExt
	for off := int64(0); ; {
		g := r.st.GetMessage("test", "T", 0, off, 32, nil)
		if g == nil || g.Status != store.Found {
			if g != nil {
				g.Release()
			}
			return out
		}
		for _, rec := range g.Records {
			m, err := message.Decode(rec, true)
			require.NoError(r.t, err)
			out = append(out, m)
		}
		off = g.NextBeginOffset
		g.Release()
	}
}

// keys counts the delivered messages per key.
func keys(ms []*message.MessageExt) map[string]int {
	out := map[string]int{}
	for _, m := range ms {
		out[m.Props[message.PropertyKeys]]++
	}
	return out
}

// gatedStore lets a test fail the service's puts from some point on, as a crash in the middle of
// a slot would stop them.
type gatedStore struct {
	Store
	allow atomic.Int64 // puts still allowed when armed
	armed atomic.Bool
	onCut func()
}

func (g *gatedStore) PutMessage(m *store.Message) store.PutResult {
	if g.armed.Load() && g.allow.Add(-1) < 0 {
		if g.onCut != nil {
			g.onCut()
		}
		return store.PutResult{Status: store.ServiceNotAvailable, Remark: "cut by the test"}
	}
	return g.Store.PutMessage(m)
}

// cutAfter lets n more puts through, then refuses them and closes stop.
func (r *rig) cutAfter(n int64) {
	r.put.allow.Store(n)
	stop := r.stop
	r.put.onCut = func() {
		select {
		case <-stop:
		default:
			close(stop)
		}
	}
	r.put.armed.Store(true)
}
