package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTLSKeysWithDotsLoad(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "broker.conf")
	require.NoError(t, os.WriteFile(p, []byte("brokerName=b\ntls.server.mode=ENFORCING\n"+
		"tls.server.certPath=/etc/cert.pem\nTLS.SERVER.KEYPATH=/etc/key.pem\ntls.test.mode.enable=false\n"), 0o644))
	b, err := LoadBroker(p, nil, nil)
	require.NoError(t, err)
	require.Equal(t, TLSEnforcing, b.TLSServerMode)
	require.Equal(t, "/etc/cert.pem", b.TLSServerCertPath)
	require.Equal(t, "/etc/key.pem", b.TLSServerKeyPath)
	require.False(t, b.TLSTestModeEnable)

	ns := filepath.Join(dir, "namesrv.conf")
	require.NoError(t, os.WriteFile(ns, []byte("tls.server.mode=disabled\n"), 0o644))
	n, err := LoadNamesrv(ns, nil, nil)
	require.NoError(t, err)
	require.Equal(t, TLSDisabled, n.TLSServerMode)
}

func TestSecurityDefaults(t *testing.T) {
	t.Setenv(EnvRocketMQHome, "")
	b, err := LoadBroker("", nil, nil)
	require.NoError(t, err)
	require.Equal(t, TLSPermissive, b.TLSServerMode, "Java's default")
	require.True(t, b.TLSTestModeEnable, "Java's default")
	require.False(t, b.AclEnable)
	require.Empty(t, b.AclConfigPath)
	n, err := LoadNamesrv("", nil, nil)
	require.NoError(t, err)
	require.Equal(t, TLSPermissive, n.TLSServerMode)

	dir := t.TempDir()
	p := filepath.Join(dir, "broker.conf")
	require.NoError(t, os.WriteFile(p, []byte("aclEnable=true\n"), 0o644))
	b, err = LoadBroker(p, nil, nil)
	require.NoError(t, err)
	require.Equal(t, filepath.Join(dir, "plain_acl.yml"), b.AclConfigPath, "next to broker.conf")

	t.Setenv(EnvRocketMQHome, "/opt/rocketmq")
	b, err = LoadBroker("", map[string]string{"aclEnable": "true"}, nil)
	require.NoError(t, err)
	require.Equal(t, "/opt/rocketmq/conf/plain_acl.yml", b.AclConfigPath)

	b, err = LoadBroker(p, map[string]string{"aclConfigPath": "/srv/acl.yml"}, nil)
	require.NoError(t, err)
	require.Equal(t, "/srv/acl.yml", b.AclConfigPath, "an explicit path wins")
}

func TestSecurityValidation(t *testing.T) {
	t.Setenv(EnvRocketMQHome, "")
	for _, tc := range []struct {
		over map[string]string
		want string
	}{
		{map[string]string{"tls.server.mode": "strict"}, `tls.server.mode="strict": want one of disabled, permissive, enforcing`},
		{map[string]string{"tls.server.certPath": "/c.pem"}, "tls.server.keyPath=\"\": must be set together with tls.server.certPath"},
		{map[string]string{"tls.server.keyPath": "/k.pem"}, "tls.server.certPath=\"\": must be set together"},
		{map[string]string{"tls.server.mode": "enforcing", "tls.test.mode.enable": "false"}, "enforcing needs"},
		{map[string]string{"aclEnable": "true"}, "aclConfigPath=\"\": must be set when aclEnable=true"},
	} {
		_, err := LoadBroker("", tc.over, nil)
		require.ErrorContains(t, err, tc.want, "%v", tc.over)
	}
	_, err := LoadNamesrv("", map[string]string{"tls.server.mode": "enforcing", "tls.test.mode.enable": "false"}, nil)
	require.ErrorContains(t, err, "enforcing needs")
}
