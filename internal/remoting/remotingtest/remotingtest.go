package remotingtest

import (
	"bufio"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// Timeout bounds every read and write of a RawConn.
const Timeout = 10 * time.Second

// StartServer starts a server on 127.0.0.1:0 (unless opts.Addr says
// otherwise) with a test logger, after setup has registered its handlers,
// and closes it when the test ends.
func StartServer(t testing.TB, opts remoting.ServerOptions, setup func(s *remoting.Server)) *remoting.Server {
	t.Helper()
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	s := remoting.NewServer(opts, zaptest.NewLogger(t))
	if setup != nil {
		setup(s)
	}
	if err := s.Start(); err != nil {
		t.Fatalf("start server: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close server: %v", err)
		}
	})
	return s
}

// RawConn is a bare TCP connection to a server.
type RawConn struct {
	t  testing.TB
	nc net.Conn
	br *bufio.Reader
}

// Dial connects to addr; the connection is closed when the test ends.
func Dial(t testing.TB, addr string) *RawConn {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, Timeout)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	t.Cleanup(func() { _ = nc.Close() })
	return Wrap(t, nc)
}

// Wrap makes a RawConn of a connection the test opened itself (e.g. over TLS).
func Wrap(t testing.TB, nc net.Conn) *RawConn {
	return &RawConn{t: t, nc: nc, br: bufio.NewReader(nc)}
}

// WriteRaw writes b as it is.
func (r *RawConn) WriteRaw(b []byte) {
	r.t.Helper()
	_ = r.nc.SetWriteDeadline(time.Now().Add(Timeout))
	if _, err := r.nc.Write(b); err != nil {
		r.t.Fatalf("write: %v", err)
	}
}

// Write encodes cmd into one frame and writes it.
func (r *RawConn) Write(cmd *protocol.Command) {
	r.t.Helper()
	b, err := protocol.EncodeCommand(cmd)
	if err != nil {
		r.t.Fatalf("encode: %v", err)
	}
	r.WriteRaw(b)
}

// ReadCommand reads and decodes one frame.
func (r *RawConn) ReadCommand() (*protocol.Command, error) {
	_ = r.nc.SetReadDeadline(time.Now().Add(Timeout))
	frame, err := protocol.ReadFrame(r.br, 0)
	if err != nil {
		return nil, err
	}
	return protocol.DecodeCommand(frame)
}

// Read reads one command and fails the test if there is none.
func (r *RawConn) Read() *protocol.Command {
	r.t.Helper()
	cmd, err := r.ReadCommand()
	if err != nil {
		r.t.Fatalf("read: %v", err)
	}
	return cmd
}

// RoundTrip writes req and reads the next command.
func (r *RawConn) RoundTrip(req *protocol.Command) *protocol.Command {
	r.t.Helper()
	r.Write(req)
	return r.Read()
}

// ExpectClosed fails the test unless the server closes the connection
// (without sending anything more) within Timeout.
func (r *RawConn) ExpectClosed() {
	r.t.Helper()
	_ = r.nc.SetReadDeadline(time.Now().Add(Timeout))
	n, err := r.br.Read(make([]byte, 1))
	if n > 0 || err == nil {
		r.t.Fatalf("connection still open: read %d bytes", n)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		r.t.Fatalf("connection not closed within %v", Timeout)
	}
	if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
		// A reset is a close too.
		r.t.Logf("connection ended with %v", err)
	}
}

// Close closes the connection.
func (r *RawConn) Close() { _ = r.nc.Close() }

// LocalAddrString is this end's address, as the server sees the peer.
func (r *RawConn) LocalAddrString() string { return r.nc.LocalAddr().String() }

// Conn is the underlying connection, for tests that write to it byte by byte.
func (r *RawConn) Conn() net.Conn { return r.nc }
