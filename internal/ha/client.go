package ha

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/lifecycle"
)

// SlaveLog is what a slave's Client appends to; *store.Store implements it.
type SlaveLog interface {
	CommitLogMaxOffset() int64
	CommitLogSegmentSize() int64
	// AppendCommitLog appends replicated bytes at off, the end of the log (or a segment start
	// when the log is empty).
	AppendCommitLog(off int64, data []byte) error
}

// Client defaults.
const (
	DefaultReconnectInterval = 5 * time.Second // Java waits 5 s after a failed connect
	DefaultDialTimeout       = 3 * time.Second
	defaultReadChunk         = 64 << 10
)

// ClientOptions configure a slave's Client. Zero values take the defaults.
type ClientOptions struct {
	// MasterAddr is the master's HA address (haMasterAddress). When empty, SetMasterAddr supplies
	// it (the haServerAddr of the nameserver's answer to REGISTER_BROKER).
	MasterAddr string
	// HeartbeatInterval: the slave reports its offset at least this often
	// (haSendHeartbeatInterval, 5 s).
	HeartbeatInterval time.Duration
	// HousekeepingInterval: a connection that delivered nothing for this long is dropped and made
	// again (haHousekeepingInterval, 20 s).
	HousekeepingInterval time.Duration
	// ReconnectInterval is the pause after a failed or lost connection (5 s).
	ReconnectInterval time.Duration
	// DialTimeout bounds a connect (3 s).
	DialTimeout time.Duration
	// MaxRecordSize bounds one replicated record; a larger one is a bad record
	// (DefaultMaxRecordSize, for Java's default maxMessageSize of 4 MiB).
	MaxRecordSize int
}

func (o *ClientOptions) setDefaults() {
	if o.HeartbeatInterval <= 0 {
		o.HeartbeatInterval = DefaultHeartbeatInterval
	}
	if o.HousekeepingInterval <= 0 {
		o.HousekeepingInterval = DefaultHousekeepingInterval
	}
	if o.ReconnectInterval <= 0 {
		o.ReconnectInterval = DefaultReconnectInterval
	}
	if o.MaxRecordSize <= 0 {
		o.MaxRecordSize = DefaultMaxRecordSize
	}
	if o.DialTimeout <= 0 {
		o.DialTimeout = DefaultDialTimeout
	}
}

// Client is a slave's side of replication (Java HAClient): one goroutine keeps a connection to
// the master and appends what it sends. A bad record from the master halts it for good (Halted):
// reconnecting would only fetch the same bytes again.
type Client struct {
	opts ClientOptions
	log  SlaveLog
	lg   *zap.Logger

	addr      atomic.Pointer[string]
	kick      chan struct{}   // the master address changed
	ctx       context.Context // cancelled by Close
	cancel    context.CancelFunc
	group     lifecycle.Group
	connected atomic.Bool
	halted    atomic.Pointer[BadRecordError]
	// masterOffset is the offset of the last frame header received (the master's send position).
	masterOffset atomic.Int64
	// lastRead and lastWrite are when bytes last came from the master and when the last report
	// went to it (unix milliseconds, 0 for never; lastRead is 0 again once the connection ends, as
	// Java's). rate counts the bytes received per second.
	lastRead, lastWrite atomic.Int64
	rate                byteRate

	mu  sync.Mutex
	cur net.Conn // the live connection, closed by SetMasterAddr and Close

	startOnce sync.Once
}

// NewClient returns a slave's Client over log; nothing runs until Start.
func NewClient(opts ClientOptions, log SlaveLog, lg *zap.Logger) *Client {
	opts.setDefaults()
	if lg == nil {
		lg = zap.NewNop()
	}
	c := &Client{opts: opts, log: log, lg: lg, kick: make(chan struct{}, 1)}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	addr := opts.MasterAddr
	c.addr.Store(&addr)
	c.masterOffset.Store(-1)
	return c
}

// Start runs the replication goroutine.
func (c *Client) Start() {
	c.startOnce.Do(func() {
		c.group.Go(func(<-chan struct{}) { c.run() })
	})
}

// Close stops replication and waits for the goroutine. It is idempotent.
func (c *Client) Close() error {
	c.cancel()
	c.dropConn()
	c.group.Stop()
	return nil
}

// Halted returns the bad record that stopped replication, or nil while replication runs.
func (c *Client) Halted() *BadRecordError { return c.halted.Load() }

// MasterAddr is the master's HA address in use ("" while unknown).
func (c *Client) MasterAddr() string { return *c.addr.Load() }

// SetMasterAddr points the client at a master's HA address; a different address drops the
// current connection and connects to the new one at once. An empty address is ignored: the
// nameserver answers none while the master is away, and the last one known is kept.
func (c *Client) SetMasterAddr(addr string) {
	if addr == "" || addr == c.MasterAddr() {
		return
	}
	c.addr.Store(&addr)
	c.lg.Info("master HA address changed", zap.String("master", addr))
	c.dropConn()
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// Connected reports whether a connection to the master is up.
func (c *Client) Connected() bool { return c.connected.Load() }

// MasterOffset is the master offset of the last frame received, -1 before any.
func (c *Client) MasterOffset() int64 { return c.masterOffset.Load() }

// LastRead is when bytes last came from the master; zero before any and after the connection
// ended.
func (c *Client) LastRead() time.Time { return fromMillis(c.lastRead.Load()) }

// LastWrite is when the slave last reported its offset to the master; zero before any.
func (c *Client) LastWrite() time.Time { return fromMillis(c.lastWrite.Load()) }

// BytesPerSecond is what came from the master in the last complete second.
func (c *Client) BytesPerSecond() int64 { return c.rate.perSecond(time.Now()) }

func fromMillis(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}

func (c *Client) dropConn() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur != nil {
		_ = c.cur.Close()
	}
}

func (c *Client) stopped() bool { return c.ctx.Err() != nil }

func (c *Client) run() {
	var lastErr string
	for !c.stopped() {
		if addr := c.MasterAddr(); addr != "" {
			err := c.session(addr)
			var bad *BadRecordError
			switch {
			case c.stopped():
				return
			case errors.As(err, &bad):
				c.halt(addr, bad)
				return
			case err == nil:
				lastErr = ""
			case err.Error() != lastErr: // the same failure again is not logged again
				lastErr = err.Error()
				c.lg.Warn("replication from the master stopped; reconnecting", zap.String("master", addr),
					zap.Error(err), zap.Duration("in", c.opts.ReconnectInterval))
			}
		}
		t := time.NewTimer(c.opts.ReconnectInterval)
		select {
		case <-c.ctx.Done():
		case <-c.kick:
		case <-t.C:
		}
		t.Stop()
	}
}

// halt stops replication after a bad record, loudly: the slave keeps what it has (every record
// up to the bad one) and serves it, but follows the master no further until it is restarted.
func (c *Client) halt(addr string, bad *BadRecordError) {
	c.halted.Store(bad)
	c.lg.Error("replication halted: the master sent a record that fails validation; "+
		"the slave keeps its log up to that offset and replicates no further until restarted",
		zap.String("master", addr), zap.Int64("offset", bad.Offset), zap.String("reason", bad.Reason))
}

// session connects to addr and replicates until the connection ends. It returns nil only when
// the connection was dropped on purpose (a new master address).
func (c *Client) session(addr string) error {
	ctx, cancel := context.WithTimeout(c.ctx, c.opts.DialTimeout)
	nc, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
	cancel()
	if err != nil {
		return fmt.Errorf("ha: connect to master %s: %w", addr, err)
	}
	c.mu.Lock()
	if c.stopped() || addr != c.MasterAddr() {
		c.mu.Unlock()
		_ = nc.Close()
		return nil
	}
	c.cur = nc
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.cur = nil
		c.mu.Unlock()
		_ = nc.Close()
		c.connected.Store(false)
		c.lastRead.Store(0)
	}()
	c.connected.Store(true)
	c.lg.Info("connected to the master for replication", zap.String("master", addr),
		zap.Int64("offset", c.log.CommitLogMaxOffset()))

	s := &session{c: c, nc: nc, buf: make([]byte, defaultReadChunk), done: make(chan struct{})}
	if err := s.reportNow(); err != nil {
		return err
	}
	beats := make(chan struct{})
	if !c.group.Go(func(<-chan struct{}) { defer close(beats); s.heartbeats() }) {
		return nil // closing
	}
	err = s.receive()
	close(s.done)
	_ = nc.Close()
	<-beats
	if errors.Is(err, net.ErrClosed) && (c.stopped() || addr != c.MasterAddr()) {
		return nil
	}
	return err
}

// session is one connection to the master.
type session struct {
	c    *Client
	nc   net.Conn
	buf  []byte
	done chan struct{}

	wmu        sync.Mutex
	reported   int64 // last offset reported
	lastReport time.Time
	reportBuf  [ReportSize]byte
}

// reportNow sends the slave's current end.
func (s *session) reportNow() error {
	return s.report(true)
}

// report sends the log's end when always is set, when it moved past the last report, or when
// the last report is older than the heartbeat interval.
func (s *session) report(always bool) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	off := s.c.log.CommitLogMaxOffset()
	if !always && off <= s.reported && time.Since(s.lastReport) < s.c.opts.HeartbeatInterval {
		return nil
	}
	PutReport(s.reportBuf[:], off)
	if err := s.nc.SetWriteDeadline(time.Now().Add(s.c.opts.HousekeepingInterval)); err != nil {
		return err
	}
	if _, err := s.nc.Write(s.reportBuf[:]); err != nil {
		return fmt.Errorf("ha: report offset %d to the master: %w", off, err)
	}
	s.reported, s.lastReport = off, time.Now()
	s.c.lastWrite.Store(s.lastReport.UnixMilli())
	return nil
}

// heartbeats reports the offset every HeartbeatInterval while nothing else was reported.
func (s *session) heartbeats() {
	t := time.NewTicker(s.c.opts.HeartbeatInterval / 2)
	defer t.Stop()
	for {
		select {
		case <-s.done:
			return
		case <-t.C:
		}
		if err := s.report(false); err != nil {
			_ = s.nc.Close() // receive fails and ends the session
			return
		}
	}
}

// Read reads from the master, recording when and how much.
func (s *session) Read(p []byte) (int, error) {
	n, err := s.nc.Read(p)
	if n > 0 {
		now := time.Now()
		s.c.lastRead.Store(now.UnixMilli())
		s.c.rate.add(n, now)
	}
	return n, err
}

// receive applies the master's frames until the connection fails.
func (s *session) receive() error {
	rc := newReceiver(s.c.log, s.buf, s.c.opts.MaxRecordSize)
	rc.deadline = func() error {
		return s.nc.SetReadDeadline(time.Now().Add(s.c.opts.HousekeepingInterval))
	}
	for {
		h, err := rc.next(s)
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				return fmt.Errorf("ha: nothing from the master for %v (haHousekeepingInterval): %w",
					s.c.opts.HousekeepingInterval, err)
			}
			return err
		}
		s.c.masterOffset.Store(h.MasterPhyOffset)
		if !h.Heartbeat() {
			if err := s.report(false); err != nil {
				return err
			}
		}
	}
}
