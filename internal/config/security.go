package config

import (
	"os"
	"path/filepath"
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

// The TLS keys are Java's system-property names (-Dtls.server.mode=...), taken here from
// broker.conf and namesrv.conf. Keys are flat, so the dots are part of the name.
const (
	keyTLSMode     = "tls.server.mode"
	keyTLSCertPath = "tls.server.certPath"
	keyTLSKeyPath  = "tls.server.keyPath"
)

// ACLFileName is plain_acl.yml's name; aclConfigPath defaults to it next to broker.conf.
const ACLFileName = "plain_acl.yml"

// EnvRocketMQHome locates conf/plain_acl.yml when no broker.conf is given, as in Java.
const EnvRocketMQHome = "ROCKETMQ_HOME"

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

// checkTLS validates the tls.server.* keys of either file.
func checkTLS(mode TLSMode, certPath, keyPath string, testMode bool) []error {
	var errs []error
	bad := func(key, value, reason string) {
		errs = append(errs, &ValueError{Key: key, Value: value, Reason: reason})
	}
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
	case mode == TLSEnforcing && certPath == "" && !testMode:
		bad(keyTLSMode, string(mode), "enforcing needs tls.server.certPath and tls.server.keyPath, or tls.test.mode.enable=true")
	}
	return errs
}

// checkACL validates the ACL keys of broker.conf.
func (b *Broker) checkACL() []error {
	if b.AclEnable && b.AclConfigPath == "" {
		return []error{&ValueError{Key: "aclConfigPath", Reason: "must be set when aclEnable=true and no broker.conf " +
			"(or " + EnvRocketMQHome + ") gives its default"}}
	}
	return nil
}
