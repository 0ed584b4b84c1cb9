package remoting

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// Limits bound what the peers of a Server can make it hold. Zero values take the defaults noted;
// a negative value turns a bound off (IdleTimeout: 0 is off).
//
// A connection's queue holds the frames waiting for its writer (responses, and requests the server
// sends) and the batch being written, counted by their encoded size. While it holds more than
// WriteBufferHighWaterMark, or MaxConnRequests of its requests are being handled, the connection's
// reader stops reading (the peer's further requests wait in TCP's buffers, then in the peer),
// until the queue is down to WriteBufferLowWaterMark, as Apache RocketMQ 5 turns Netty's autoRead
// off on an unwritable channel. Stopping keeps a client that reads slowly working; one that does
// not read at all is closed once a write has been blocked for the write timeout. The queue can
// still grow while the reader waits (requests already being handled, held pulls that wake up), so a
// connection whose queue would exceed MaxQueuedBytes is closed, and so is one above its high-water
// mark while all connections together hold more than MaxTotalQueuedBytes.
type Limits struct {
	// IdleTimeout closes a connection whose next frame has not arrived in full this long after the
	// previous one (serverChannelMaxIdleTimeSeconds); 0 never. A frame sent a byte at a time does
	// not keep the connection open: the deadline covers the whole frame. A connection this side
	// owes an answer (a held pull) is not idle between frames.
	IdleTimeout time.Duration
	// MaxConnections bounds the open connections (TLS detection included); beyond it a new
	// connection is closed at once, logged at most every 10 s. Default 10000.
	MaxConnections int
	// WriteBufferHighWaterMark: above this many queued bytes a connection's reader stops. Default
	// 1 MiB.
	WriteBufferHighWaterMark int
	// WriteBufferLowWaterMark: a stopped reader resumes at or below this many. Default 256 KiB
	// (at most the high-water mark).
	WriteBufferLowWaterMark int
	// MaxQueuedBytes: a connection whose queue would exceed this is closed. A single frame larger
	// than this is still queued when the queue is empty. Default 64 MiB.
	MaxQueuedBytes int
	// MaxTotalQueuedBytes: while all queues together hold more than this, a connection above its
	// high-water mark that queues another frame is closed. Default 512 MiB.
	MaxTotalQueuedBytes int64
	// MaxConnRequests bounds one connection's requests being handled at once (a request a handler
	// keeps, such as a held pull, is not counted once its handler has returned); at the bound the
	// connection's reader waits. Default 256.
	MaxConnRequests int
}

// Defaults of Limits.
const (
	DefaultMaxConnections           = 10000
	DefaultWriteBufferHighWaterMark = 1 << 20
	DefaultWriteBufferLowWaterMark  = 256 << 10
	DefaultMaxQueuedBytes           = 64 << 20
	DefaultMaxTotalQueuedBytes      = 512 << 20
	DefaultMaxConnRequests          = 256
)

// refusalLogInterval is how often, at most, refused connections are logged.
const refusalLogInterval = 10 * time.Second

func (l *Limits) setDefaults() {
	def := func(p *int, d int) {
		if *p == 0 {
			*p = d
		}
	}
	def(&l.MaxConnections, DefaultMaxConnections)
	def(&l.WriteBufferHighWaterMark, DefaultWriteBufferHighWaterMark)
	def(&l.WriteBufferLowWaterMark, DefaultWriteBufferLowWaterMark)
	def(&l.MaxQueuedBytes, DefaultMaxQueuedBytes)
	def(&l.MaxConnRequests, DefaultMaxConnRequests)
	if l.MaxTotalQueuedBytes == 0 {
		l.MaxTotalQueuedBytes = DefaultMaxTotalQueuedBytes
	}
	if l.WriteBufferHighWaterMark > 0 {
		l.WriteBufferLowWaterMark = min(l.WriteBufferLowWaterMark, l.WriteBufferHighWaterMark)
	}
}

// connLimits is what a server's connections share of its Limits, with the bytes queued on all of
// them. A client's connections have none.
type connLimits struct {
	high, low      int64 // reader stops above high, resumes at or below low; < 0: never stops
	maxQueued      int64 // < 0: unbounded
	maxTotal       int64 // < 0: unbounded
	maxConnServing int32 // < 0: unbounded
	total          atomic.Int64
}

func newConnLimits(l Limits) *connLimits {
	cl := &connLimits{high: int64(l.WriteBufferHighWaterMark), low: int64(l.WriteBufferLowWaterMark),
		maxQueued: int64(l.MaxQueuedBytes), maxTotal: l.MaxTotalQueuedBytes, maxConnServing: int32(l.MaxConnRequests)}
	if cl.high < 0 {
		cl.low = -1
	}
	return cl
}

// errQueueFull: a frame would take a connection's queue past a bound; the connection is closed.
var errQueueFull = errors.New("remoting: write queue full")

// admit says why a frame of size bytes may not join a queue holding queued bytes, or nil.
func (l *connLimits) admit(queued, size int64) error {
	if l == nil || queued == 0 {
		return nil
	}
	if l.maxQueued >= 0 && queued+size > l.maxQueued {
		return fmt.Errorf("%w: %d bytes queued for a peer that is not reading, limit %d", errQueueFull, queued+size, l.maxQueued)
	}
	if l.maxTotal >= 0 && l.high >= 0 && queued > l.high && l.total.Load()+size > l.maxTotal {
		return fmt.Errorf("%w: %d bytes queued on this connection and %d on all, limit %d", errQueueFull,
			queued+size, l.total.Load()+size, l.maxTotal)
	}
	return nil
}

// add counts n more (or, negative, fewer) queued bytes in the total.
func (l *connLimits) add(n int64) {
	if l != nil {
		l.total.Add(n)
	}
}

// frameSize estimates the encoded size of cmd: body, remark, ext fields and the fixed header.
func frameSize(cmd *protocol.Command) int64 {
	n := int64(cmd.BodyLen() + len(cmd.Remark) + 64)
	cmd.ExtFields.Range(func(k, v string) bool {
		n += int64(len(k) + len(v) + 6)
		return true
	})
	return n
}

// mayRead reports whether c's reader may read the next frame: its queue is at most the high-water
// mark (the low one while it is stopped) and fewer than the bound of its requests are being
// handled.
func (c *Conn) mayRead(stopped bool) bool {
	l := c.cfg.limits
	if l == nil {
		return true
	}
	mark := l.high
	if stopped {
		mark = l.low
	}
	if mark >= 0 && c.out.queued.Load() > mark {
		return false
	}
	return l.maxConnServing < 0 || c.serving.Load() < l.maxConnServing
}

// waitToRead stops c's reader until mayRead; false if the connection ended meanwhile.
func (c *Conn) waitToRead() bool {
	if c.mayRead(false) {
		return true
	}
	c.readStopped.Store(true)
	defer c.readStopped.Store(false)
	c.lg.Debug("reading stopped: the peer is not reading its responses fast enough",
		zap.Int64("queuedBytes", c.out.queued.Load()), zap.Int32("serving", c.serving.Load()))
	for !c.mayRead(true) {
		select {
		case <-c.flowWake:
		case <-c.ctx.Done():
			return false
		}
	}
	return true
}

// flowChanged wakes c's reader if it waits: its queue shrank or a request finished.
func (c *Conn) flowChanged() {
	if c.readStopped.Load() {
		select {
		case c.flowWake <- struct{}{}:
		default:
		}
	}
}

// acceptLimit reports whether the server may take one more connection; it logs refusals at most
// every refusalLogInterval, with how many there were.
func (s *Server) acceptLimit() bool {
	if s.opts.MaxConnections < 0 {
		return true
	}
	if s.Connections() < s.opts.MaxConnections {
		return true
	}
	refused := s.refused.Add(1)
	now := time.Now().UnixNano()
	if last := s.lastRefusalLog.Load(); now-last >= int64(refusalLogInterval) && s.lastRefusalLog.CompareAndSwap(last, now) {
		s.refused.Add(-refused)
		s.lg.Warn("connection limit reached: closing new connections", zap.Int("limit", s.opts.MaxConnections),
			zap.Int64("refused", refused))
	}
	return false
}

// Connections returns how many connections the server has open (TLS detection included).
func (s *Server) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.mu.conns) + len(s.mu.detecting)
}

// QueuedBytes returns the bytes queued for writing on all the server's connections.
func (s *Server) QueuedBytes() int64 { return s.cfg.limits.total.Load() }
