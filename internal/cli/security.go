package cli

import (
	"crypto/tls"
	"fmt"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/config"
	"github.com/rocketgo/rocketgo/internal/remoting"
)

// tlsKeys are the tls.server.* keys of broker.conf or namesrv.conf.
type tlsKeys struct {
	mode              config.TLSMode
	certPath, keyPath string
	testMode          bool
}

// serverTLS maps the tls.server.* keys onto the remoting server's TLS options: the certificate
// and key files when given; else, with tls.test.mode.enable (Java's default), a self-signed
// certificate made at start-up; else no TLS at all (permissive then serves plain TCP only, with a
// warning; enforcing without a certificate is refused by config validation).
func serverTLS(k tlsKeys, lg *zap.Logger) (remoting.TLSOptions, error) {
	var mode remoting.TLSMode
	switch k.mode {
	case config.TLSDisabled:
		return remoting.TLSOptions{}, nil
	case config.TLSPermissive:
		mode = remoting.TLSPermissive
	case config.TLSEnforcing:
		mode = remoting.TLSEnforcing
	default:
		return remoting.TLSOptions{}, fmt.Errorf("tls.server.mode %q: want disabled, permissive or enforcing", k.mode)
	}
	var cert tls.Certificate
	var err error
	switch {
	case k.certPath != "":
		cert, err = tls.LoadX509KeyPair(k.certPath, k.keyPath)
		if err != nil {
			return remoting.TLSOptions{}, fmt.Errorf("tls.server.certPath %s / tls.server.keyPath %s: %w", k.certPath, k.keyPath, err)
		}
		lg.Info("TLS on", zap.Stringer("mode", mode), zap.String("certPath", k.certPath))
	case k.testMode:
		cert, err = remoting.SelfSignedCertificate()
		if err != nil {
			return remoting.TLSOptions{}, err
		}
		lg.Info("TLS on with a self-signed certificate made at start-up (tls.test.mode.enable=true); "+
			"set tls.server.certPath and tls.server.keyPath to serve your own", zap.Stringer("mode", mode))
	default:
		lg.Warn("tls.server.mode is permissive but there is no certificate (tls.server.certPath, " +
			"tls.server.keyPath) and tls.test.mode.enable=false: serving plain TCP only")
		return remoting.TLSOptions{}, nil
	}
	return remoting.TLSOptions{Mode: mode, Config: &tls.Config{
		Certificates: []tls.Certificate{cert},
		MinVersion:   tls.VersionTLS12,
	}}, nil
}
