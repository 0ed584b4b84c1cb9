package config

import (
	"crypto/ecdsa"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/remoting"
)

// writeCert writes a self-signed certificate and its key as PEM files.
func writeCert(t *testing.T) (certPath, keyPath string, der []byte) {
	t.Helper()
	cert, err := remoting.SelfSignedCertificate("127.0.0.1")
	require.NoError(t, err)
	keyDER, err := x509.MarshalECPrivateKey(cert.PrivateKey.(*ecdsa.PrivateKey))
	require.NoError(t, err)
	dir := t.TempDir()
	certPath, keyPath = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	require.NoError(t, os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate[0]}), 0o600))
	require.NoError(t, os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600))
	return certPath, keyPath, cert.Certificate[0]
}

func TestServerTLSFromKeys(t *testing.T) {
	lg := zap.NewNop()
	opts, err := TLSKeys{TLSServerMode: TLSDisabled, TLSTestModeEnable: true}.Server(lg)
	require.NoError(t, err)
	require.Equal(t, remoting.TLSDisabled, opts.Mode)

	opts, err = TLSKeys{TLSServerMode: TLSPermissive, TLSTestModeEnable: true}.Server(lg)
	require.NoError(t, err)
	require.Equal(t, remoting.TLSPermissive, opts.Mode)
	require.Len(t, opts.Config.Certificates, 1, "test mode makes a certificate")

	certPath, keyPath, der := writeCert(t)
	opts, err = TLSKeys{TLSServerMode: TLSEnforcing, TLSServerCertPath: certPath, TLSServerKeyPath: keyPath, TLSTestModeEnable: true}.Server(lg)
	require.NoError(t, err)
	require.Equal(t, remoting.TLSEnforcing, opts.Mode)
	require.Equal(t, der, opts.Config.Certificates[0].Certificate[0], "the files win over test mode")

	_, err = TLSKeys{TLSServerMode: TLSPermissive, TLSServerCertPath: keyPath, TLSServerKeyPath: certPath}.Server(lg)
	require.ErrorContains(t, err, "tls.server.certPath")

	opts, err = TLSKeys{TLSServerMode: TLSPermissive}.Server(lg)
	require.NoError(t, err)
	require.Equal(t, remoting.TLSDisabled, opts.Mode, "no certificate: plain TCP only")
}

func TestACLOptionsFromConf(t *testing.T) {
	cfg, err := LoadBroker(writeConf(t, "brokerName=b\n"), nil, nil)
	require.NoError(t, err)
	bo, err := cfg.Options()
	require.NoError(t, err)
	require.Nil(t, bo.Broker.ACL)

	path := writeConf(t, "brokerName=b\naclEnable=true\n")
	cfg, err = LoadBroker(path, nil, nil)
	require.NoError(t, err)
	bo, err = cfg.Options()
	require.NoError(t, err)
	require.NotNil(t, bo.Broker.ACL)
	require.Equal(t, filepath.Join(filepath.Dir(path), "plain_acl.yml"), bo.Broker.ACL.Path)
}
