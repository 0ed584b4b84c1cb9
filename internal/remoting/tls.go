package remoting

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"strings"
	"syscall"
	"time"

	"go.uber.org/zap"
	"golang.org/x/sys/unix"
)

// TLSMode is a server's TLS policy, as Java's tls.server.mode names it.
type TLSMode uint8

// TLS modes.
const (
	// TLSDisabled serves plain TCP only (a TLS client's handshake is read
	// as a broken frame and its connection closed).
	TLSDisabled TLSMode = iota
	// TLSPermissive serves TLS and plain TCP on the same port, told apart
	// by the connection's first byte (0x16, a TLS handshake record, means
	// TLS). It is Java's default.
	TLSPermissive
	// TLSEnforcing serves TLS only and closes plain connections.
	TLSEnforcing
)

var tlsModeNames = [...]string{"disabled", "permissive", "enforcing"}

// String is the mode as tls.server.mode spells it.
func (m TLSMode) String() string {
	if int(m) < len(tlsModeNames) {
		return tlsModeNames[m]
	}
	return fmt.Sprintf("TLSMode(%d)", m)
}

// ParseTLSMode reads "disabled", "permissive" or "enforcing" in any case.
func ParseTLSMode(s string) (TLSMode, error) {
	for i, name := range tlsModeNames {
		if strings.EqualFold(strings.TrimSpace(s), name) {
			return TLSMode(i), nil
		}
	}
	return 0, fmt.Errorf("remoting: unknown TLS mode %q: want disabled, permissive or enforcing", s)
}

// TLSOptions configure TLS on a server. The zero value is TLSDisabled.
type TLSOptions struct {
	Mode TLSMode
	// Config holds the server's certificate; required unless Mode is
	// TLSDisabled.
	Config *tls.Config
	// HandshakeTimeout bounds a TLS handshake. Default 10 s.
	HandshakeTimeout time.Duration
}

const (
	defaultHandshakeTimeout = 10 * time.Second
	// tlsHandshakeRecord is the first byte of every TLS connection: the
	// content type of the ClientHello's record.
	tlsHandshakeRecord = 0x16
)

func (o *TLSOptions) check() error {
	if o.Mode > TLSEnforcing {
		return fmt.Errorf("remoting: unknown TLS mode %d", o.Mode)
	}
	if o.Mode != TLSDisabled && (o.Config == nil || (len(o.Config.Certificates) == 0 &&
		o.Config.GetCertificate == nil && o.Config.GetConfigForClient == nil)) {
		return fmt.Errorf("remoting: TLS mode %s needs a certificate", o.Mode)
	}
	return nil
}

// acceptTLS decides, off the accept loop, whether nc speaks TLS: it peeks
// at the first byte without consuming it, then serves nc as it is or
// through a TLS handshake, or closes it. It runs on a goroutine counted in
// s.wg; nc is in s.mu.detecting until it returns, so that Close can end
// the wait.
func (s *Server) acceptTLS(nc net.Conn) {
	defer s.doneDetecting(nc)
	lg := s.lg.With(zap.String("remote", addrString(nc.RemoteAddr())))
	if s.opts.IdleTimeout > 0 {
		_ = nc.SetReadDeadline(time.Now().Add(s.opts.IdleTimeout))
	}
	first, err := peekByte(nc)
	if err != nil {
		_ = nc.Close()
		lg.Debug("connection ended before its first byte", zap.Error(err))
		return
	}
	if first != tlsHandshakeRecord {
		if s.opts.TLS.Mode == TLSEnforcing {
			_ = nc.Close()
			lg.Warn("closing a plain connection: this server is in TLS enforcing mode")
			return
		}
		_ = nc.SetReadDeadline(time.Time{})
		s.serveConn(nc)
		return
	}
	tc := tls.Server(nc, s.opts.TLS.Config)
	_ = nc.SetDeadline(time.Now().Add(s.opts.TLS.HandshakeTimeout))
	if err := tc.Handshake(); err != nil {
		_ = nc.Close()
		lg.Info("TLS handshake failed", zap.Error(err))
		return
	}
	_ = nc.SetDeadline(time.Time{})
	s.serveConn(tc)
}

// peekByte waits for the first byte nc receives and returns it without
// consuming it, so that the connection is then served unwrapped (keeping
// writev on plain TCP). It honours nc's read deadline.
func peekByte(nc net.Conn) (byte, error) {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return 0, errors.New("remoting: cannot peek at a non-socket connection")
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return 0, err
	}
	var b [1]byte
	var n int
	var perr error
	err = raw.Read(func(fd uintptr) bool {
		for {
			n, _, perr = unix.Recvfrom(int(fd), b[:], unix.MSG_PEEK)
			if perr != unix.EINTR {
				break
			}
		}
		return perr != unix.EAGAIN // false: wait until readable, then call again
	})
	switch {
	case err != nil:
		return 0, err
	case perr != nil:
		return 0, perr
	case n == 0:
		return 0, io.EOF
	}
	return b[0], nil
}

// SelfSignedCertificate returns a new self-signed ECDSA P-256 certificate
// for hosts (IP addresses or DNS names; "localhost" when none), valid for a
// year. Servers use it when TLS is on without certificate files (Java's
// tls.test.mode.enable); clients must skip verification, as the Go client
// does.
func SelfSignedCertificate(hosts ...string) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("remoting: generate key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 126))
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("remoting: certificate serial: %w", err)
	}
	if len(hosts) == 0 {
		hosts = []string{"localhost"}
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: hosts[0]},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.AddDate(1, 0, 0),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("remoting: create certificate: %w", err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}
