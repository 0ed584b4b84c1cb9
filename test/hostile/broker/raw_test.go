package broker

import (
	"encoding/binary"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rocketgo/rocketgo/test/e2e/cluster"
)

// Request codes the hostile clients send (protocol.md §2).
const (
	codeSendMessage         = 10
	codePullMessage         = 11
	codeUpdateConsumerOff   = 15
	codeGetAllTopicConfig   = 21
	codeGetBrokerConfig     = 26
	codeGetMaxOffset        = 30
	codeViewMessageByID     = 33
	codeHeartBeat           = 34
	codeConsumerSendMsgBack = 36
	codeGetAllSubGroups     = 201
	codeDeleteTopic         = 215
)

// Response codes the tests expect.
const (
	respSuccess       = 0
	respSystemError   = 1
	respSystemBusy    = 2
	respTopicNotExist = 17
	respPullNotFound  = 19
)

// rawConn is one hostile connection: requests are written as they come (pipelined), responses
// read by a goroutine and kept by opaque.
type rawConn struct {
	t  testing.TB
	nc net.Conn

	wmu    sync.Mutex
	opaque int32

	mu      sync.Mutex
	answers map[int32]*cluster.Response
	arrived chan struct{} // a token after every response
	readErr error
	done    chan struct{}
}

func dial(t testing.TB, addr string) *rawConn {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	c := &rawConn{t: t, nc: nc, answers: map[int32]*cluster.Response{}, arrived: make(chan struct{}, 1),
		done: make(chan struct{})}
	go c.readLoop()
	t.Cleanup(c.Close)
	return c
}

// Close closes the connection and waits for its reader.
func (c *rawConn) Close() {
	_ = c.nc.Close()
	<-c.done
}

func (c *rawConn) readLoop() {
	defer close(c.done)
	var lenBuf [4]byte
	for {
		if _, err := io.ReadFull(c.nc, lenBuf[:]); err != nil {
			c.fail(err)
			return
		}
		f := make([]byte, binary.BigEndian.Uint32(lenBuf[:]))
		if _, err := io.ReadFull(c.nc, f); err != nil {
			c.fail(err)
			return
		}
		resp, opaque, flag, err := cluster.DecodeResponse(f)
		if err != nil {
			c.fail(err)
			return
		}
		if flag&1 == 0 {
			continue // a request from the broker (NOTIFY_CONSUMER_IDS_CHANGED ...)
		}
		c.mu.Lock()
		c.answers[opaque] = resp
		c.mu.Unlock()
		select {
		case c.arrived <- struct{}{}:
		default:
		}
	}
}

func (c *rawConn) fail(err error) {
	c.mu.Lock()
	c.readErr = err
	c.mu.Unlock()
	select {
	case c.arrived <- struct{}{}:
	default:
	}
}

// send writes a request and returns its opaque.
func (c *rawConn) send(code int, ext map[string]string, body []byte) int32 {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.opaque++
	frame, err := cluster.EncodeRequest(code, c.opaque, ext, body)
	if err != nil {
		c.t.Fatalf("encode: %v", err)
	}
	if _, err := c.nc.Write(frame); err != nil {
		c.t.Fatalf("write request %d: %v", code, err)
	}
	return c.opaque
}

// await waits for the answer to opaque.
func (c *rawConn) await(opaque int32, timeout time.Duration) *cluster.Response {
	c.t.Helper()
	deadline := time.After(timeout)
	for {
		c.mu.Lock()
		resp, ok := c.answers[opaque]
		delete(c.answers, opaque)
		err := c.readErr
		c.mu.Unlock()
		switch {
		case ok:
			return resp
		case err != nil:
			c.t.Fatalf("connection failed waiting for opaque %d: %v", opaque, err)
		}
		select {
		case <-c.arrived:
		case <-deadline:
			c.t.Fatalf("no answer to opaque %d within %v", opaque, timeout)
		}
	}
}

// call sends a request and waits for its answer.
func (c *rawConn) call(code int, ext map[string]string, body []byte) *cluster.Response {
	c.t.Helper()
	return c.await(c.send(code, ext, body), 15*time.Second)
}

// answered is the number of answers read and not yet awaited.
func (c *rawConn) answered() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.answers)
}

// takeAnswers returns and forgets every answer read so far.
func (c *rawConn) takeAnswers() map[int32]*cluster.Response {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.answers
	c.answers = map[int32]*cluster.Response{}
	return out
}

// requireAnswer checks a response's code and that its remark says want.
func requireAnswer(t testing.TB, resp *cluster.Response, code int, want string) {
	t.Helper()
	if resp.Code != code || !strings.Contains(resp.Remark, want) {
		t.Fatalf("want code %d with remark containing %q, got %s", code, want, resp)
	}
}
