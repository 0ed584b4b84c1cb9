package ha

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
)

// slaveConn is the master's side of one slave connection (Java HAConnection): a reader of the
// slave's reports and a sender of CommitLog frames.
type slaveConn struct {
	s    *Service
	nc   net.Conn
	addr string
	lg   *zap.Logger

	kick     chan struct{} // new data may be readable (capacity 1)
	reported chan struct{} // closed at the first report
	done     chan struct{} // closed by close
	once     sync.Once

	gotFirst  bool         // the reader has seen the first report
	requested atomic.Int64 // the first report: where the slave wants data from
	acked     atomic.Int64 // the last report accepted, -1 before the start was accepted
	sent      atomic.Int64 // end of what was (being) sent, -1 before sending starts
	rate      byteRate     // bytes sent per second

	hdr  [HeaderSize]byte
	bufs [2][]byte
}

func newSlaveConn(s *Service, nc net.Conn) *slaveConn {
	addr := nc.RemoteAddr().String()
	c := &slaveConn{s: s, nc: nc, addr: addr, lg: s.lg.With(zap.String("slave", addr)),
		kick: make(chan struct{}, 1), reported: make(chan struct{}), done: make(chan struct{})}
	c.acked.Store(-1)
	c.sent.Store(-1)
	return c
}

// run serves the connection until either direction fails or the service closes.
func (c *slaveConn) run() {
	readDone := make(chan struct{})
	if !c.s.group.Go(func(<-chan struct{}) { defer close(readDone); c.ended(c.readReports()) }) {
		return // the service is closing
	}
	c.ended(c.send())
	c.close()
	<-readDone
}

// errSlaveLeft is a slave closing its end: no error on the master's side.
var errSlaveLeft = errors.New("ha: the slave closed the connection")

// ended closes the connection after one direction ended, logging why unless it was closed on
// purpose.
func (c *slaveConn) ended(err error) {
	if err == nil {
		return
	}
	select {
	case <-c.done:
		if errors.Is(err, net.ErrClosed) {
			return
		}
	default:
	}
	c.close()
	if errors.Is(err, errSlaveLeft) {
		c.lg.Info("slave disconnected")
		return
	}
	c.lg.Warn("slave connection closed", zap.Error(err))
}

func (c *slaveConn) close() {
	c.once.Do(func() {
		close(c.done)
		_ = c.nc.Close()
	})
}

func (c *slaveConn) wake() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// readReports reads the slave's 8-byte offset reports until the connection fails. A slave silent
// for HousekeepingInterval is dropped.
func (c *slaveConn) readReports() error {
	var dec ReportDecoder
	buf := make([]byte, 256)
	for {
		if err := c.nc.SetReadDeadline(time.Now().Add(c.s.opts.HousekeepingInterval)); err != nil {
			return err
		}
		n, err := c.nc.Read(buf)
		if n > 0 {
			off, ok, derr := dec.Feed(buf[:n])
			if derr != nil {
				return derr
			}
			if ok {
				if rerr := c.reported1(off); rerr != nil {
					return rerr
				}
			}
		}
		switch {
		case err == nil:
		case errors.Is(err, os.ErrDeadlineExceeded):
			return fmt.Errorf("ha: no report from the slave for %v (haHousekeepingInterval)", c.s.opts.HousekeepingInterval)
		case errors.Is(err, io.EOF):
			return errSlaveLeft
		default:
			return err
		}
	}
}

// reported1 handles one report. The first says where the slave wants data from; it counts as an
// acknowledgement only once send accepted it (a slave ahead of the master must not complete
// SYNC_MASTER puts). Later ones acknowledge what was sent.
func (c *slaveConn) reported1(off int64) error {
	if !c.gotFirst {
		c.gotFirst = true
		c.requested.Store(off)
		close(c.reported)
		c.lg.Info("slave reported its commit log end", zap.Int64("offset", off))
		return nil
	}
	sent := c.sent.Load()
	switch {
	case sent < 0:
		return nil // the start is not accepted yet: a repeat of the first report
	case off > sent:
		return fmt.Errorf("ha: the slave acknowledged offset %d, past the %d bytes sent to it", off, sent)
	}
	c.acked.Store(off)
	c.s.acknowledged(off)
	return nil
}

// send streams CommitLog frames from where the slave asked, and heartbeats while idle.
func (c *slaveConn) send() error {
	select {
	case <-c.reported:
	case <-c.done:
		return nil
	}
	next, err := c.startOffset()
	if err != nil {
		return err
	}
	req := c.requested.Load()
	c.acked.Store(req)
	c.sent.Store(next)
	c.s.acknowledged(req)
	c.lg.Info("replicating to slave", zap.Int64("from", next))
	hb := c.s.opts.HeartbeatInterval
	timer := time.NewTimer(hb)
	defer timer.Stop()
	lastWrite := time.Now()
	for {
		d, ok := c.s.log.ReadCommitLog(next, c.s.opts.TransferBatchSize)
		if ok {
			n := len(d.Bytes)
			c.sent.Store(next + int64(n)) // before the write: the ack may come back before it returns
			err := c.write(Header{MasterPhyOffset: next, BodySize: int32(n)}, d.Bytes)
			d.Release()
			if err != nil {
				return err
			}
			next += int64(n)
			lastWrite = time.Now()
			c.rate.add(HeaderSize+n, lastWrite)
			continue
		}
		if first := c.s.log.CommitLogMinOffset(); next < first {
			return fmt.Errorf("ha: the slave needs commit log offset %d but the master's log starts at %d "+
				"(deleted by cleanup): the slave cannot catch up and needs a fresh store", next, first)
		}
		if idle := time.Since(lastWrite); idle >= hb {
			if err := c.write(Header{MasterPhyOffset: next}, nil); err != nil {
				return err
			}
			lastWrite = time.Now()
		}
		timer.Reset(hb - time.Since(lastWrite))
		select {
		case <-c.done:
			return nil
		case <-c.kick:
		case <-timer.C:
		}
	}
}

// startOffset is where sending begins: the slave's reported offset, or, when it reported 0 (an
// empty slave), the start of the master's newest segment, as Java's master does.
func (c *slaveConn) startOffset() (int64, error) {
	req := c.requested.Load()
	maxOff := c.s.log.CommitLogMaxOffset()
	switch {
	case req == 0:
		return maxOff - maxOff%c.s.log.CommitLogSegmentSize(), nil
	case req > maxOff:
		return 0, fmt.Errorf("ha: the slave's commit log ends at %d, past the master's end %d: "+
			"the logs diverged (was the master's store replaced or cut back?); the slave needs a fresh store", req, maxOff)
	case req < c.s.log.CommitLogMinOffset():
		return 0, fmt.Errorf("ha: the slave needs commit log offset %d but the master's log starts at %d "+
			"(deleted by cleanup): the slave cannot catch up and needs a fresh store", req, c.s.log.CommitLogMinOffset())
	}
	return req, nil
}

// write sends one frame: the header and the body straight from the mapped CommitLog.
func (c *slaveConn) write(h Header, body []byte) error {
	if err := c.nc.SetWriteDeadline(time.Now().Add(c.s.opts.HousekeepingInterval)); err != nil {
		return err
	}
	PutHeader(c.hdr[:], h)
	c.bufs[0], c.bufs[1] = c.hdr[:], body
	bufs := net.Buffers(c.bufs[:])
	_, err := bufs.WriteTo(c.nc)
	c.bufs[0], c.bufs[1] = nil, nil
	if err != nil {
		return fmt.Errorf("ha: send %d bytes at %d: %w", h.BodySize, h.MasterPhyOffset, err)
	}
	return nil
}
