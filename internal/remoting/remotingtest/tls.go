package remotingtest

import (
	"crypto/tls"
	"net"
	"testing"
)

// DialTLS connects to addr over TLS, as the Go client's WithTls(true) does (no certificate
// verification), and completes the handshake; the connection is closed when the test ends.
func DialTLS(t testing.TB, addr string) *RawConn {
	t.Helper()
	nc, err := DialTLSConn(addr)
	if err != nil {
		t.Fatalf("TLS dial %s: %v", addr, err)
	}
	t.Cleanup(func() { _ = nc.Close() })
	return Wrap(t, nc)
}

// DialTLSConn connects to addr over TLS without verifying the server's certificate and returns the
// connection once the handshake is over (or its error).
func DialTLSConn(addr string) (*tls.Conn, error) {
	d := &net.Dialer{Timeout: Timeout}
	return tls.DialWithDialer(d, "tcp", addr, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // as the Go client
}
