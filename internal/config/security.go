package config

import (
	"crypto/tls"
	"fmt"
	"os"
	"path/filepath"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/acl"
	"github.com/rocketgo/rocketgo/internal/remoting"
)

// TLSMode is tls.server.mode (Java TlsSystemConfig): whether the server's port takes TLS.
type TLSMode string

// TLS server modes.
const (
	TLSDisabled   TLSMode = "disabled"   // plain TCP only
	TLSPermissive TLSMode = "permissive" // TLS and plain TCP on the same port (Java's default)
	TLSEnforcing  TLSMode = "enforcing"  // TLS only
)

// UnmarshalText accepts a mode in any letter case.
func (m *TLSMode) UnmarshalText(b []byte) error {
	v, err := parseEnum(string(b), TLSDisabled, TLSPermissive, TLSEnforcing)
	if err == nil {
		*m = v
	}
	return err
}

// TLSKeys are the tls.server.* keys, which broker.conf and namesrv.conf share. They are Java's
// system-property names (-Dtls.server.mode=...), taken here from the file; keys are flat, so the
// dots are part of the name.
type TLSKeys struct {
	TLSServerMode     TLSMode
	TLSServerCertPath string
	TLSServerKeyPath  string
	TLSTestModeEnable bool
}

const (
	keyTLSMode     = "tls.server.mode"
	keyTLSCertPath = "tls.server.certPath"
	keyTLSKeyPath  = "tls.server.keyPath"
)

// tlsKeys declares the tls.server.* keys of a file whose config holds them at in and whose
// options take them at out.
func tlsKeys[C, T any](in func(*C) *TLSKeys, out func(*T) *TLSKeys) []key[C, T] {
	return section("Security",
		key[C, T]{name: keyTLSMode, origin: systemProperty, def: string(TLSPermissive),
			doc:   "disabled, permissive (TLS and plain TCP on one port) or enforcing (TLS only); see security.md.",
			field: func(c *C) any { return &in(c).TLSServerMode },
			to:    func(c *C, o *T) { out(o).TLSServerMode = in(c).TLSServerMode }},
		key[C, T]{name: keyTLSCertPath, origin: systemProperty,
			doc:   "PEM certificate (chain) of the port; set together with tls.server.keyPath.",
			field: func(c *C) any { return &in(c).TLSServerCertPath },
			to:    func(c *C, o *T) { out(o).TLSServerCertPath = in(c).TLSServerCertPath }},
		key[C, T]{name: keyTLSKeyPath, origin: systemProperty,
			doc:   "PEM private key of tls.server.certPath.",
			field: func(c *C) any { return &in(c).TLSServerKeyPath },
			to:    func(c *C, o *T) { out(o).TLSServerKeyPath = in(c).TLSServerKeyPath }},
		key[C, T]{name: "tls.test.mode.enable", origin: systemProperty, def: "true",
			doc:   "Without a certificate, serve TLS with a self-signed one made at start-up (Java's test mode).",
			field: func(c *C) any { return &in(c).TLSTestModeEnable },
			to:    func(c *C, o *T) { out(o).TLSTestModeEnable = in(c).TLSTestModeEnable }},
	)
}

// check validates the tls.server.* keys.
func (k *TLSKeys) check() []error {
	var errs []error
	bad := func(key, value, reason string) {
		errs = append(errs, &ValueError{Key: key, Value: value, Reason: reason})
	}
	mode, certPath, keyPath := k.TLSServerMode, k.TLSServerCertPath, k.TLSServerKeyPath
	if !validEnum(mode, TLSDisabled, TLSPermissive, TLSEnforcing) {
		bad(keyTLSMode, string(mode), "want one of disabled, permissive, enforcing")
	}
	switch {
	case (certPath == "") != (keyPath == ""):
		if certPath == "" {
			bad(keyTLSCertPath, certPath, "must be set together with "+keyTLSKeyPath)
		} else {
			bad(keyTLSKeyPath, keyPath, "must be set together with "+keyTLSCertPath)
		}
	case mode == TLSEnforcing && certPath == "" && !k.TLSTestModeEnable:
		bad(keyTLSMode, string(mode), "enforcing needs tls.server.certPath and tls.server.keyPath, or tls.test.mode.enable=true")
	}
	return errs
}

// Server turns the keys into the remoting server's TLS options: the certificate and key files when
// given; else, with tls.test.mode.enable (Java's default), a self-signed certificate made now;
// else no TLS at all (permissive then serves plain TCP only, with a warning; enforcing without a
// certificate is refused by validation). It reads the files, so the command calls it at start-up.
func (k TLSKeys) Server(lg *zap.Logger) (remoting.TLSOptions, error) {
	var mode remoting.TLSMode
	switch k.TLSServerMode {
	case TLSDisabled:
		return remoting.TLSOptions{}, nil
	case TLSPermissive:
		mode = remoting.TLSPermissive
	case TLSEnforcing:
		mode = remoting.TLSEnforcing
	default:
		return remoting.TLSOptions{}, fmt.Errorf("tls.server.mode %q: want disabled, permissive or enforcing", k.TLSServerMode)
	}
	lg = orNop(lg)
	var cert tls.Certificate
	var err error
	switch {
	case k.TLSServerCertPath != "":
		cert, err = tls.LoadX509KeyPair(k.TLSServerCertPath, k.TLSServerKeyPath)
		if err != nil {
			return remoting.TLSOptions{}, fmt.Errorf("tls.server.certPath %s / tls.server.keyPath %s: %w",
				k.TLSServerCertPath, k.TLSServerKeyPath, err)
		}
		lg.Info("TLS on", zap.Stringer("mode", mode), zap.String("certPath", k.TLSServerCertPath))
	case k.TLSTestModeEnable:
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

// ACLFileName is plain_acl.yml's name; aclConfigPath defaults to it next to broker.conf.
const ACLFileName = "plain_acl.yml"

// EnvRocketMQHome locates conf/plain_acl.yml when no broker.conf is given, as in Java.
const EnvRocketMQHome = "ROCKETMQ_HOME"

// aclKeys declares aclEnable and aclConfigPath.
func aclKeys() []brokerKey {
	return section("Security",
		brokerKey{name: "aclEnable",
			doc:   "Check every request's signature and permissions against plain_acl.yml; see security.md.",
			field: func(c *Broker) any { return &c.AclEnable },
			to:    toACL},
		brokerKey{name: "aclConfigPath", origin: ours,
			defDoc: "`plain_acl.yml` next to broker.conf, else `${ROCKETMQ_HOME}/conf/plain_acl.yml`",
			doc:    "Where plain_acl.yml is.",
			field:  func(c *Broker) any { return &c.AclConfigPath },
			to:     toACL},
	)
}

// toACL turns plain ACL on when aclEnable is set.
func toACL(c *Broker, o *BrokerOptions) {
	o.Broker.ACL = nil
	if c.AclEnable {
		o.Broker.ACL = &acl.Options{Path: c.AclConfigPath}
	}
}

// defaultACLPath is where plain_acl.yml is looked for when aclConfigPath is not set: next to
// broker.conf, else ${ROCKETMQ_HOME}/conf/plain_acl.yml, else empty.
func defaultACLPath(confPath string) string {
	if confPath != "" {
		return filepath.Join(filepath.Dir(confPath), ACLFileName)
	}
	if home := os.Getenv(EnvRocketMQHome); home != "" {
		return filepath.Join(home, "conf", ACLFileName)
	}
	return ""
}

// checkACL validates the ACL keys of broker.conf.
func (b *Broker) checkACL() []error {
	if b.AclEnable && b.AclConfigPath == "" {
		return []error{&ValueError{Key: "aclConfigPath", Reason: "must be set when aclEnable=true and no broker.conf " +
			"(or " + EnvRocketMQHome + ") gives its default"}}
	}
	return nil
}
