package main

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// conn is one pipelined remoting connection: any number of goroutines call
// it at once, a writer goroutine batches their frames, a reader goroutine
// hands each response to its caller by opaque.
type conn struct {
	nc     net.Conn
	sendc  chan []byte
	opaque atomic.Int32

	mu      sync.Mutex
	pending map[int32]chan *protocol.Command
	err     error // set once the connection broke
	done    chan struct{}
}

func dial(addr string) (*conn, error) {
	nc, err := net.DialTimeout("tcp", addr, 3*time.Second)
	if err != nil {
		return nil, err
	}
	c := &conn{nc: nc, sendc: make(chan []byte, 1024), pending: map[int32]chan *protocol.Command{}, done: make(chan struct{})}
	go c.writeLoop()
	go c.readLoop()
	return c, nil
}

func (c *conn) writeLoop() {
	w := bufio.NewWriterSize(c.nc, 256<<10)
	for {
		select {
		case <-c.done:
			return
		case f := <-c.sendc:
			if _, err := w.Write(f); err != nil {
				c.fail(err)
				return
			}
			if len(c.sendc) == 0 {
				if err := w.Flush(); err != nil {
					c.fail(err)
					return
				}
			}
		}
	}
}

func (c *conn) readLoop() {
	r := bufio.NewReaderSize(c.nc, 256<<10)
	for {
		frame, err := protocol.ReadFrame(r, 64<<20)
		if err != nil {
			c.fail(err)
			return
		}
		cmd, err := protocol.DecodeCommand(frame)
		if err != nil {
			c.fail(err)
			return
		}
		if !cmd.IsResponse() {
			continue // a request of the broker's (NOTIFY_CONSUMER_IDS_CHANGED): oneway, nothing to answer
		}
		c.mu.Lock()
		ch := c.pending[cmd.Opaque]
		delete(c.pending, cmd.Opaque)
		c.mu.Unlock()
		if ch != nil {
			ch <- cmd
		}
	}
}

func (c *conn) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return
	}
	c.err = err
	close(c.done)
	c.nc.Close()
}

func (c *conn) close() { c.fail(errors.New("closed")) }

// call sends req and waits for its response.
func (c *conn) call(req *protocol.Command, timeout time.Duration) (*protocol.Command, error) {
	req.Opaque = c.opaque.Add(1)
	frame, err := protocol.EncodeCommand(req)
	if err != nil {
		return nil, err
	}
	ch := make(chan *protocol.Command, 1)
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return nil, c.err
	}
	c.pending[req.Opaque] = ch
	c.mu.Unlock()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case c.sendc <- frame:
	case <-c.done:
		return nil, c.err
	}
	select {
	case resp := <-ch:
		return resp, nil
	case <-c.done:
		return nil, c.err
	case <-t.C:
		c.mu.Lock()
		delete(c.pending, req.Opaque)
		c.mu.Unlock()
		return nil, fmt.Errorf("code %d: no response within %v", req.Code, timeout)
	}
}

// pool is a few connections to one server.
type pool []*conn

func dialPool(addr string, n int) (pool, error) {
	var p pool
	for range n {
		c, err := dial(addr)
		if err != nil {
			p.close()
			return nil, err
		}
		p = append(p, c)
	}
	return p, nil
}

func (p pool) close() {
	for _, c := range p {
		c.close()
	}
}

// each runs fn(i, conn) for i in [0, n) on window goroutines per connection
// and returns the first error.
func (p pool) each(n, window int, fn func(i int, c *conn) error) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	for w := range len(p) * window {
		c := p[w%len(p)]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := fn(i, c); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					next.Store(int64(n)) // stop the others
					return
				}
			}
		}()
	}
	wg.Wait()
	return first
}

// expect checks a response code.
func expect(resp *protocol.Command, what string, codes ...protocol.ResponseCode) error {
	for _, c := range codes {
		if resp.ResponseCode() == c {
			return nil
		}
	}
	return fmt.Errorf("%s: response code %d: %s", what, resp.Code, resp.Remark)
}
