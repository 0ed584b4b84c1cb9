package remoting_test

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/internal/remoting/remotingtest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// tlsServer starts an echo server in mode with a certificate made for the test.
func tlsServer(t *testing.T, mode remoting.TLSMode, edit ...func(*remoting.ServerOptions)) (tls.Certificate, string) {
	t.Helper()
	cert, err := remoting.SelfSignedCertificate("127.0.0.1")
	require.NoError(t, err)
	opts := remoting.ServerOptions{TLS: remoting.TLSOptions{Mode: mode, Config: &tls.Config{Certificates: []tls.Certificate{cert}}}}
	for _, e := range edit {
		e(&opts)
	}
	_, addr := startEcho(t, opts, nil)
	return cert, addr
}

// echoes requires that raw is served: a request comes back with its body.
func echoes(t *testing.T, raw *remotingtest.RawConn, opaque int32) {
	t.Helper()
	resp := raw.RoundTrip(&protocol.Command{Code: int32(codeEcho), Opaque: opaque, Body: []byte("ping")})
	require.Equal(t, protocol.Success, resp.ResponseCode())
	require.Equal(t, opaque, resp.Opaque)
	require.Equal(t, "ping", string(resp.Body))
}

func TestPermissiveServesTLSAndPlainOnOnePort(t *testing.T) {
	cert, addr := tlsServer(t, remoting.TLSPermissive)
	plain := remotingtest.Dial(t, addr)
	secure := remotingtest.DialTLS(t, addr)
	for i := range int32(3) {
		echoes(t, plain, 10+i)
		echoes(t, secure, 20+i)
	}
	// The TLS connection really is TLS, with the configured certificate.
	tc, err := remotingtest.DialTLSConn(addr)
	require.NoError(t, err)
	defer tc.Close()
	state := tc.ConnectionState()
	require.True(t, state.HandshakeComplete)
	require.Equal(t, cert.Certificate[0], state.PeerCertificates[0].Raw)
}

func TestTLSCarriesLargeFramesBothWays(t *testing.T) {
	_, addr := tlsServer(t, remoting.TLSPermissive)
	secure := remotingtest.DialTLS(t, addr)
	body := make([]byte, 1<<20) // many TLS records each way
	for i := range body {
		body[i] = byte(i * 7)
	}
	resp := secure.RoundTrip(&protocol.Command{Code: int32(codeEcho), Opaque: 1, Body: body})
	require.Equal(t, protocol.Success, resp.ResponseCode())
	require.Equal(t, body, resp.Body)
}

func TestEnforcingClosesPlainConnections(t *testing.T) {
	_, addr := tlsServer(t, remoting.TLSEnforcing)
	plain := remotingtest.Dial(t, addr)
	plain.Write(&protocol.Command{Code: int32(codeEcho), Opaque: 1})
	plain.ExpectClosed()
	echoes(t, remotingtest.DialTLS(t, addr), 2)
}

func TestDisabledRefusesTLS(t *testing.T) {
	_, addr := startEcho(t, remoting.ServerOptions{}, nil)
	_, err := remotingtest.DialTLSConn(addr)
	require.Error(t, err, "a plain-only server must not complete a TLS handshake")
	echoes(t, remotingtest.Dial(t, addr), 1)
}

func TestStalledHandshakeIsClosed(t *testing.T) {
	_, addr := tlsServer(t, remoting.TLSPermissive, func(o *remoting.ServerOptions) {
		o.TLS.HandshakeTimeout = 100 * time.Millisecond
	})
	raw := remotingtest.Dial(t, addr)
	raw.WriteRaw([]byte{0x16, 0x03, 0x01}) // the start of a ClientHello, and nothing more
	raw.ExpectClosed()
	// A TLS handshake that is not one at all.
	raw = remotingtest.Dial(t, addr)
	raw.WriteRaw([]byte{0x16, 'n', 'o', 't', ' ', 't', 'l', 's', '!', '!', '!', '!'})
	raw.ExpectClosed()
	echoes(t, remotingtest.DialTLS(t, addr), 1)
}

func TestSilentConnectionClosedAfterIdleTimeout(t *testing.T) {
	_, addr := tlsServer(t, remoting.TLSPermissive, func(o *remoting.ServerOptions) {
		o.IdleTimeout = 100 * time.Millisecond
	})
	remotingtest.Dial(t, addr).ExpectClosed()
}

func TestCloseEndsConnectionsAwaitingTheirFirstByte(t *testing.T) {
	cert, err := remoting.SelfSignedCertificate()
	require.NoError(t, err)
	s := remoting.NewServer(remoting.ServerOptions{Addr: "127.0.0.1:0", TLS: remoting.TLSOptions{
		Mode: remoting.TLSPermissive, Config: &tls.Config{Certificates: []tls.Certificate{cert}}}}, zaptest.NewLogger(t))
	s.Handle(codeEcho, echo)
	require.NoError(t, s.Start())
	silent := remotingtest.Dial(t, s.Addr().String())
	echoes(t, remotingtest.Dial(t, s.Addr().String()), 1) // the silent one has been accepted by now
	require.NoError(t, s.Close())                         // returns: nothing waits on the silent peer
	silent.ExpectClosed()
}

func TestTLSModeWithoutCertificateFailsToStart(t *testing.T) {
	for _, mode := range []remoting.TLSMode{remoting.TLSPermissive, remoting.TLSEnforcing} {
		s := remoting.NewServer(remoting.ServerOptions{Addr: "127.0.0.1:0", TLS: remoting.TLSOptions{Mode: mode}}, nil)
		err := s.Start()
		require.ErrorContains(t, err, "needs a certificate", mode.String())
		require.NoError(t, s.Close())
	}
}

func TestParseTLSMode(t *testing.T) {
	for in, want := range map[string]remoting.TLSMode{
		"disabled": remoting.TLSDisabled, "Permissive": remoting.TLSPermissive, " ENFORCING ": remoting.TLSEnforcing,
	} {
		got, err := remoting.ParseTLSMode(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	_, err := remoting.ParseTLSMode("strict")
	require.ErrorContains(t, err, `"strict"`)
}

func TestSelfSignedCertificateNamesItsHosts(t *testing.T) {
	cert, err := remoting.SelfSignedCertificate("127.0.0.1", "broker.example")
	require.NoError(t, err)
	leaf, err := x509.ParseCertificate(cert.Certificate[0])
	require.NoError(t, err)
	require.NoError(t, leaf.VerifyHostname("broker.example"))
	require.True(t, leaf.IPAddresses[0].Equal(net.ParseIP("127.0.0.1")))
	require.True(t, time.Now().Before(leaf.NotAfter))
}
