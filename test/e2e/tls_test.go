package e2e

import (
	"context"
	"testing"

	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/producer"
	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/test/e2e/cluster"
)

// TestTLSPermissive: the broker serves a certificate from files (tls.server.certPath/keyPath)
// and the nameserver, with no TLS keys at all, Java's defaults (permissive, with a self-signed
// certificate). Go clients with WithTls(true) talk TLS to both; plain clients keep working on
// the same ports.
func TestTLSPermissive(t *testing.T) {
	t.Parallel()
	certPath, keyPath, der := cluster.WriteSelfSignedCert(t, t.TempDir())
	c := cluster.Start(t, cluster.Options{BrokerProps: map[string]string{
		"tls.server.mode":     "permissive",
		"tls.server.certPath": certPath,
		"tls.server.keyPath":  keyPath,
	}})
	b := c.Brokers[0]

	got, err := cluster.TLSPeerCertificate(b.Addr)
	require.NoError(t, err, "TLS handshake with the broker")
	require.Equal(t, der, got, "the broker presents the certificate of tls.server.certPath")
	_, err = cluster.TLSPeerCertificate(c.NamesrvAddr())
	require.NoError(t, err, "TLS handshake with the nameserver (default permissive mode)")

	topic := uniq(t, "T")
	secure := newProducer(t, c, producer.WithTls(true))
	tlsIDs, _ := sendN(t, secure, topic, "tls", 10)
	plain := newProducer(t, c)
	plainIDs, _ := sendN(t, plain, topic, "plain", 10)
	all := append(tlsIDs, plainIDs...)

	tlsCol := newCollector()
	newPushConsumer(t, c, uniq(t, "CG"), topic, selectAll, tlsCol, consumer.WithTls(true))
	tlsCol.waitFor(t, all, consumeTimeout)
	plainCol := newCollector()
	newPushConsumer(t, c, uniq(t, "CG"), topic, selectAll, plainCol)
	plainCol.waitFor(t, all, consumeTimeout)

	// The harness's plain remoting client still reads the broker.
	ctx, cancel := context.WithTimeout(context.Background(), sendTimeout)
	defer cancel()
	_, err = cluster.MaxOffset(ctx, b.Addr, topic, 0)
	require.NoError(t, err, "a plain request to a permissive broker")
}

// TestTLSEnforcing: a broker with tls.server.mode=enforcing (and the self-signed certificate of
// test mode) serves TLS clients and drops plain connections.
func TestTLSEnforcing(t *testing.T) {
	t.Parallel()
	c := cluster.Start(t, cluster.Options{BrokerProps: map[string]string{"tls.server.mode": "enforcing"}})
	b := c.Brokers[0]

	topic := uniq(t, "T")
	secure := newProducer(t, c, producer.WithTls(true))
	ids, _ := sendN(t, secure, topic, "tls", 5)
	col := newCollector()
	newPushConsumer(t, c, uniq(t, "CG"), topic, selectAll, col, consumer.WithTls(true))
	col.waitFor(t, ids, consumeTimeout)

	ctx, cancel := context.WithTimeout(context.Background(), sendTimeout)
	defer cancel()
	_, err := cluster.MaxOffset(ctx, b.Addr, topic, 0)
	require.Error(t, err, "a plain request to an enforcing broker must fail")
}
