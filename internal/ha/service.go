package ha

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/lifecycle"
	"github.com/rocketgo/rocketgo/internal/store"
)

// MasterLog is what a master's Service reads; *store.Store implements it.
type MasterLog interface {
	CommitLogMinOffset() int64
	CommitLogMaxOffset() int64
	CommitLogSegmentSize() int64
	// ReadCommitLog returns up to max readable bytes from off on, within one segment, without
	// copying; ok is false when nothing is readable at off.
	ReadCommitLog(off int64, max int) (store.CommitLogData, bool)
}

// Defaults (Java MessageStoreConfig).
const (
	DefaultTransferBatchSize    = 32 << 10         // haTransferBatchSize
	DefaultHeartbeatInterval    = 5 * time.Second  // haSendHeartbeatInterval
	DefaultHousekeepingInterval = 20 * time.Second // haHousekeepingInterval
	DefaultSlaveFallbehindMax   = 256 << 20        // haSlaveFallbehindMax
	DefaultSlaveTimeout         = 3 * time.Second  // slaveTimeout
	DefaultMaxGapNotInSync      = 256 << 20        // haMaxGapNotInSync
)

// ServiceOptions configure a master's Service. Zero values take the defaults.
type ServiceOptions struct {
	// ListenAddr is where slaves connect (bindAddress:haListenPort).
	ListenAddr string
	// TransferBatchSize caps the body of one frame (haTransferBatchSize, 32 KiB).
	TransferBatchSize int
	// HeartbeatInterval: an empty frame goes to a slave that got nothing for this long
	// (haSendHeartbeatInterval, 5 s).
	HeartbeatInterval time.Duration
	// HousekeepingInterval: a slave that reported nothing for this long is disconnected
	// (haHousekeepingInterval, 20 s).
	HousekeepingInterval time.Duration
	// SlaveFallbehindMax: a SYNC_MASTER put waits only for a slave less than this many bytes
	// behind its end, and answers SlaveNotAvailable at once otherwise (haSlaveFallbehindMax,
	// 256 MiB).
	SlaveFallbehindMax int64
	// SlaveTimeout bounds a SYNC_MASTER put's wait for an acknowledgement (slaveTimeout, 3 s).
	SlaveTimeout time.Duration
	// MaxGapNotInSync: a slave whose acknowledged offset is less than this many bytes behind the
	// master's end counts as in sync in the HA status (haMaxGapNotInSync, 256 MiB).
	MaxGapNotInSync int64
	// AllowedPeers, when not empty, are the only addresses a slave may connect from; any other
	// connection is closed at once, before it can read a byte of the CommitLog or acknowledge
	// anything. Empty (the default, as in Apache RocketMQ) admits everyone: then the HA port must
	// be reachable by the slaves only (docs/security.md).
	AllowedPeers []netip.Prefix
}

func (o *ServiceOptions) setDefaults() {
	if o.TransferBatchSize <= 0 {
		o.TransferBatchSize = DefaultTransferBatchSize
	}
	if o.HeartbeatInterval <= 0 {
		o.HeartbeatInterval = DefaultHeartbeatInterval
	}
	if o.HousekeepingInterval <= 0 {
		o.HousekeepingInterval = DefaultHousekeepingInterval
	}
	if o.SlaveFallbehindMax <= 0 {
		o.SlaveFallbehindMax = DefaultSlaveFallbehindMax
	}
	if o.SlaveTimeout <= 0 {
		o.SlaveTimeout = DefaultSlaveTimeout
	}
	if o.MaxGapNotInSync <= 0 {
		o.MaxGapNotInSync = DefaultMaxGapNotInSync
	}
}

// Service is a master's side of replication (Java HAService with its AcceptSocketService,
// HAConnections and GroupTransferService). It implements store.Replicator.
type Service struct {
	opts ServiceOptions
	log  MasterLog
	lg   *zap.Logger

	ln    net.Listener
	group lifecycle.Group
	// lastRefusal rate-limits the log line of refused peers (unix nanoseconds).
	lastRefusal atomic.Int64

	mu     sync.Mutex
	conns  map[*slaveConn]struct{}
	closed bool
	// live is a snapshot of conns for the hot paths (NotifyReadable, WaitReplicated).
	live atomic.Pointer[[]*slaveConn]

	// push2SlaveMaxOffset is the largest offset any slave acknowledged (Java's
	// push2SlaveMaxOffset); it never goes back.
	push2SlaveMaxOffset atomic.Int64
	waits               waitList

	startOnce sync.Once
	startErr  error
}

// NewService returns a master's Service over log; nothing runs until Start.
func NewService(opts ServiceOptions, log MasterLog, lg *zap.Logger) *Service {
	opts.setDefaults()
	if lg == nil {
		lg = zap.NewNop()
	}
	s := &Service{opts: opts, log: log, lg: lg, conns: make(map[*slaveConn]struct{})}
	s.live.Store(new([]*slaveConn))
	return s
}

// Start listens on ListenAddr and accepts slaves until Close.
func (s *Service) Start() error {
	s.startOnce.Do(func() {
		ln, err := net.Listen("tcp", s.opts.ListenAddr)
		if err != nil {
			s.startErr = fmt.Errorf("ha: listen on %s: %w", s.opts.ListenAddr, err)
			return
		}
		s.mu.Lock()
		s.ln = ln
		s.mu.Unlock()
		if !s.group.Go(s.accept) {
			_ = ln.Close()
			s.startErr = errors.New("ha: service closed")
			return
		}
		s.lg.Info("HA service listening for slaves", zap.String("addr", ln.Addr().String()))
	})
	return s.startErr
}

// Addr is the address the service listens on, nil before Start.
func (s *Service) Addr() net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln == nil {
		return nil
	}
	return s.ln.Addr()
}

func (s *Service) accept(stop <-chan struct{}) {
	var backoff time.Duration
	for {
		nc, err := s.ln.Accept()
		if err != nil {
			select {
			case <-stop:
				return
			default:
			}
			if errors.Is(err, net.ErrClosed) {
				return
			}
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			s.lg.Warn("HA accept failed; retrying", zap.Error(err), zap.Duration("in", backoff))
			select {
			case <-stop:
				return
			case <-time.After(backoff):
			}
			continue
		}
		backoff = 0
		if !s.allowed(nc) {
			continue
		}
		s.serve(nc)
	}
}

// serve starts the goroutines of a new slave connection.
func (s *Service) serve(nc net.Conn) {
	c := newSlaveConn(s, nc)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		_ = nc.Close()
		return
	}
	s.conns[c] = struct{}{}
	s.publishLocked()
	s.mu.Unlock()
	s.lg.Info("slave connected", zap.String("slave", c.addr))
	if !s.group.Go(func(<-chan struct{}) { c.run(); s.forget(c) }) {
		c.close()
		s.forget(c)
	}
}

// forget drops a finished connection.
func (s *Service) forget(c *slaveConn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.publishLocked()
	s.mu.Unlock()
}

// allowed admits a connection from an allowed peer and closes any other.
func (s *Service) allowed(nc net.Conn) bool {
	if len(s.opts.AllowedPeers) == 0 {
		return true
	}
	ap, err := netip.ParseAddrPort(nc.RemoteAddr().String())
	if err == nil {
		for _, p := range s.opts.AllowedPeers {
			if p.Contains(ap.Addr().Unmap()) {
				return true
			}
		}
	}
	_ = nc.Close()
	now := time.Now().UnixNano()
	if last := s.lastRefusal.Load(); now-last >= int64(time.Second) && s.lastRefusal.CompareAndSwap(last, now) {
		s.lg.Warn("HA connection refused: the peer is not in the allowed slave addresses",
			zap.String("peer", nc.RemoteAddr().String()))
	}
	return false
}

// publishLocked refreshes the snapshot of connections. REQUIRES: s.mu.
func (s *Service) publishLocked() {
	list := make([]*slaveConn, 0, len(s.conns))
	for c := range s.conns {
		list = append(list, c)
	}
	s.live.Store(&list)
}

// Close stops accepting, disconnects every slave, waits for the service's goroutines and answers
// the puts still waiting with FlushSlaveTimeout. It is idempotent.
func (s *Service) Close() error {
	s.mu.Lock()
	s.closed = true
	if s.ln != nil {
		_ = s.ln.Close()
	}
	for c := range s.conns {
		c.close()
	}
	s.mu.Unlock()
	s.group.Stop()
	s.waits.close()
	return nil
}

// NotifyReadable wakes every slave's sender: new data may be readable (store.Replicator).
func (s *Service) NotifyReadable() {
	for _, c := range *s.live.Load() {
		c.wake()
	}
}

// WaitReplicated blocks until a slave acknowledged the CommitLog up to end (Java
// GroupTransferService): PutOK; SlaveNotAvailable at once when no connected slave is less than
// SlaveFallbehindMax behind end (Java isSlaveOK); FlushSlaveTimeout after SlaveTimeout or when
// the service closes.
func (s *Service) WaitReplicated(end int64) store.PutStatus {
	if !s.slaveOK(end) {
		return store.SlaveNotAvailable
	}
	s.NotifyReadable()
	return s.waits.wait(end, s.opts.SlaveTimeout, &s.push2SlaveMaxOffset)
}

// slaveOK reports whether a connected slave has reported an offset within SlaveFallbehindMax of
// end.
func (s *Service) slaveOK(end int64) bool {
	for _, c := range *s.live.Load() {
		if a := c.acked.Load(); a >= 0 && end-a < s.opts.SlaveFallbehindMax {
			return true
		}
	}
	return false
}

// acknowledged records a slave's report: push2SlaveMaxOffset moves up and the puts it covers
// complete.
func (s *Service) acknowledged(off int64) {
	for {
		cur := s.push2SlaveMaxOffset.Load()
		if off <= cur {
			break
		}
		if s.push2SlaveMaxOffset.CompareAndSwap(cur, off) {
			break
		}
	}
	s.waits.notify(s.push2SlaveMaxOffset.Load())
}

// Push2SlaveMaxOffset is the largest CommitLog offset a slave has acknowledged.
func (s *Service) Push2SlaveMaxOffset() int64 { return s.push2SlaveMaxOffset.Load() }

// SlaveStatus describes one connected slave.
type SlaveStatus struct {
	Addr string
	// AckOffset is the end of the slave's CommitLog as it last reported it, -1 before its first
	// report.
	AckOffset int64
	// SentOffset is the end of what was sent to it, where the next frame starts (Java's
	// transferFromWhere), -1 before the first frame.
	SentOffset int64
	// BytesPerSecond is what was sent to it in the last complete second.
	BytesPerSecond int64
}

// Slaves describes the connected slaves.
func (s *Service) Slaves() []SlaveStatus {
	var out []SlaveStatus
	now := time.Now()
	for _, c := range *s.live.Load() {
		out = append(out, SlaveStatus{Addr: c.addr, AckOffset: c.acked.Load(), SentOffset: c.sent.Load(),
			BytesPerSecond: c.rate.perSecond(now)})
	}
	return out
}

// InSync reports whether a slave that acknowledged ack is in sync with a master whose CommitLog
// ends at end: less than MaxGapNotInSync behind (Java's isInSyncSlave).
func (s *Service) InSync(end, ack int64) bool { return end-ack < s.opts.MaxGapNotInSync }
