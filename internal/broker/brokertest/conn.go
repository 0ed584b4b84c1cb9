package brokertest

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// Timeout bounds every wait for a frame. Long-poll tests suspend pulls for longer than this, so a
// pull answered within it was answered well before its suspend timeout.
const Timeout = 10 * time.Second

// Frame is one command read from the broker and its payload as received (everything after the
// length field), for tests that check the header encoding.
type Frame struct {
	Cmd *protocol.Command
	Raw []byte
}

// Conn is a raw remoting connection to a broker. It is used from the test goroutine only.
type Conn struct {
	t      testing.TB
	nc     net.Conn
	br     *bufio.Reader
	opaque int32

	responses map[int32]Frame // read while waiting for another
	requests  []Frame         // server→client requests not yet taken
}

// Dial connects to addr; the connection is closed when the test ends.
func Dial(t testing.TB, addr string) *Conn {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, Timeout)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	t.Cleanup(func() { _ = nc.Close() })
	return &Conn{t: t, nc: nc, br: bufio.NewReader(nc), opaque: 1000, responses: map[int32]Frame{}}
}

// Close closes the connection.
func (c *Conn) Close() { _ = c.nc.Close() }

// LocalAddr is this end's address, as the broker sees the client.
func (c *Conn) LocalAddr() string { return c.nc.LocalAddr().String() }

// WriteRaw writes b as it is.
func (c *Conn) WriteRaw(b []byte) {
	c.t.Helper()
	_ = c.nc.SetWriteDeadline(time.Now().Add(Timeout))
	if _, err := c.nc.Write(b); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// Send gives req a fresh opaque, writes it and returns the opaque.
func (c *Conn) Send(req *protocol.Command) int32 {
	c.t.Helper()
	c.opaque++
	req.Opaque = c.opaque
	b, err := protocol.EncodeCommand(req)
	if err != nil {
		c.t.Fatalf("encode %v: %v", req.RequestCode(), err)
	}
	c.WriteRaw(b)
	return req.Opaque
}

// SendRaw writes a frame whose header the test built itself (e.g. JSON with native numbers in
// extFields): the length word, the JSON type and header length word, header and body.
func (c *Conn) SendRaw(jsonHeader, body []byte) {
	c.t.Helper()
	b := binary.BigEndian.AppendUint32(nil, uint32(4+len(jsonHeader)+len(body)))
	b = binary.BigEndian.AppendUint32(b, uint32(len(jsonHeader)))
	b = append(b, jsonHeader...)
	c.WriteRaw(append(b, body...))
}

// Call sends req and returns its response.
func (c *Conn) Call(req *protocol.Command) *protocol.Command {
	c.t.Helper()
	return c.Await(c.Send(req))
}

// Await returns the response with this opaque, reading (and keeping) whatever comes before it.
func (c *Conn) Await(opaque int32) *protocol.Command {
	c.t.Helper()
	return c.AwaitFrame(opaque).Cmd
}

// AwaitFrame is Await with the payload as received.
func (c *Conn) AwaitFrame(opaque int32) Frame {
	c.t.Helper()
	deadline := time.Now().Add(Timeout)
	for {
		if f, ok := c.responses[opaque]; ok {
			delete(c.responses, opaque)
			return f
		}
		if _, err := c.readOne(deadline); err != nil {
			c.t.Fatalf("waiting for the response to opaque %d: %v", opaque, err)
		}
	}
}

// TryAwait is Await for a response that may never come because the broker closes the
// connection: false when it closes first. A timeout still fails the test.
func (c *Conn) TryAwait(opaque int32) (*protocol.Command, bool) {
	c.t.Helper()
	deadline := time.Now().Add(Timeout)
	for {
		if f, ok := c.responses[opaque]; ok {
			delete(c.responses, opaque)
			return f.Cmd, true
		}
		if _, err := c.readOne(deadline); err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				c.t.Fatalf("waiting for the response to opaque %d: %v", opaque, err)
			}
			return nil, false
		}
	}
}

// Answered reports whether the response to opaque has already been read (without reading more).
func (c *Conn) Answered(opaque int32) bool {
	_, ok := c.responses[opaque]
	return ok
}

// AwaitRequest returns the next request the broker sent with this code, reading until one comes.
func (c *Conn) AwaitRequest(code protocol.RequestCode) *protocol.Command {
	c.t.Helper()
	deadline := time.Now().Add(Timeout)
	for {
		for i, f := range c.requests {
			if f.Cmd.RequestCode() == code {
				c.requests = append(c.requests[:i], c.requests[i+1:]...)
				return f.Cmd
			}
		}
		if _, err := c.readOne(deadline); err != nil {
			c.t.Fatalf("waiting for a %v request: %v", code, err)
		}
	}
}

// TakeRequests returns and forgets the server→client requests read so far.
func (c *Conn) TakeRequests() []*protocol.Command {
	out := make([]*protocol.Command, 0, len(c.requests))
	for _, f := range c.requests {
		out = append(out, f.Cmd)
	}
	c.requests = nil
	return out
}

// Sync makes a round trip (GET_MAX_OFFSET of a queue nobody uses), so that everything the broker
// queued on this connection before answering it has been read.
func (c *Conn) Sync() {
	c.t.Helper()
	resp := c.Call(QueueRequest(protocol.GetMaxOffset, "brokertest-sync", 0))
	if resp.ResponseCode() != protocol.Success {
		c.t.Fatalf("sync round trip: code %d %q", resp.Code, resp.Remark)
	}
}

// readOne reads one frame and files it as a response or a server request.
func (c *Conn) readOne(deadline time.Time) (Frame, error) {
	_ = c.nc.SetReadDeadline(deadline)
	payload, err := protocol.ReadFrame(c.br, 0)
	if err != nil {
		return Frame{}, err
	}
	cmd, err := protocol.DecodeCommand(payload)
	if err != nil {
		return Frame{}, err
	}
	f := Frame{Cmd: cmd, Raw: payload}
	if cmd.IsResponse() {
		if _, dup := c.responses[cmd.Opaque]; dup {
			return f, errors.New("two responses with one opaque")
		}
		c.responses[cmd.Opaque] = f
	} else {
		c.requests = append(c.requests, f)
	}
	return f, nil
}

// ExpectClosed fails the test unless the broker closes the connection within Timeout without
// sending anything more.
func (c *Conn) ExpectClosed() {
	c.t.Helper()
	_ = c.nc.SetReadDeadline(time.Now().Add(Timeout))
	n, err := c.br.Read(make([]byte, 1))
	if n > 0 || err == nil {
		c.t.Fatalf("connection still open: read %d bytes", n)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		c.t.Fatalf("connection not closed within %v", Timeout)
	}
	if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
		c.t.Logf("connection ended with %v", err) // a reset is a close too
	}
}
