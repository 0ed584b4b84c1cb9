package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/test/e2e/cluster"
)

// e2eACL gives one account publish and subscribe rights on every topic and group, except one
// denied topic; nothing is whitelisted by address, so every request must be signed.
const e2eACL = `# plain_acl.yml written by test/e2e
globalWhiteRemoteAddresses:

accounts:
  - accessKey: e2e-access-key
    secretKey: e2e-secret-key
    whiteRemoteAddress:
    admin: false
    defaultTopicPerm: PUB|SUB
    defaultGroupPerm: SUB
    topicPerms:
      - ForbiddenTopic=DENY
`

// aclCluster starts a cluster whose broker has aclEnable=true with e2eACL.
func aclCluster(t *testing.T) *cluster.Cluster {
	t.Helper()
	path := filepath.Join(t.TempDir(), "plain_acl.yml")
	require.NoError(t, os.WriteFile(path, []byte(e2eACL), 0o600))
	return cluster.Start(t, cluster.Options{BrokerProps: map[string]string{
		"aclEnable":     "true",
		"aclConfigPath": path,
	}})
}

var goodCredentials = primitive.Credentials{AccessKey: "e2e-access-key", SecretKey: "e2e-secret-key"}

// TestACLSignedClientsWork: a producer and a push consumer with the account's credentials send
// and receive through a broker that checks every request; the Go client's SecurityToken variant
// (sent, but left out of what it signs) is accepted too.
func TestACLSignedClientsWork(t *testing.T) {
	t.Parallel()
	c := aclCluster(t)
	topic := uniq(t, "T")
	p := newProducer(t, c, producer.WithCredentials(goodCredentials))
	ids, _ := sendN(t, p, topic, "signed", 10)

	withToken := goodCredentials
	withToken.SecurityToken = "e2e-security-token"
	pt := newProducer(t, c, producer.WithCredentials(withToken))
	tokenIDs, _ := sendN(t, pt, topic, "token", 5)

	col := newCollector()
	newPushConsumer(t, c, uniq(t, "CG"), topic, selectAll, col, consumer.WithCredentials(goodCredentials))
	col.waitFor(t, append(ids, tokenIDs...), consumeTimeout)
}

// TestACLRefusesBadCredentials: a wrong secret, an unknown access key, no credentials at all and
// a denied topic each make the send fail with the broker's AclException text (4.9 answers
// SYSTEM_ERROR, which the client retries and then reports).
func TestACLRefusesBadCredentials(t *testing.T) {
	t.Parallel()
	c := aclCluster(t)
	topic := uniq(t, "T")
	// The topic exists (created by a signed send), so refusals are about credentials only.
	good := newProducer(t, c, producer.WithCredentials(goodCredentials))
	sendSync(t, good, message(topic, "first", []byte("created by a signed send")))

	for name, tc := range map[string]struct {
		opts  []producer.Option
		topic string
		want  string
	}{
		"wrong secret": {[]producer.Option{producer.WithCredentials(primitive.Credentials{
			AccessKey: "e2e-access-key", SecretKey: "not-the-secret"})}, topic,
			"Check signature failed for accessKey=e2e-access-key"},
		"unknown access key": {[]producer.Option{producer.WithCredentials(primitive.Credentials{
			AccessKey: "someone-else", SecretKey: "e2e-secret-key"})}, topic, "No acl config for someone-else"},
		"no credentials": {nil, topic, "No accessKey is configured"},
		"denied topic":   {[]producer.Option{producer.WithCredentials(goodCredentials)}, "ForbiddenTopic", "No default permission for topic:ForbiddenTopic"},
	} {
		p := newProducer(t, c, tc.opts...)
		ctx, cancel := context.WithTimeout(context.Background(), sendTimeout+5e9)
		_, err := p.SendSync(ctx, message(tc.topic, name, []byte("refused")))
		cancel()
		require.Error(t, err, "%s: the send must fail", name)
		require.Contains(t, err.Error(), "CODE: 1", "%s", name)
		require.Contains(t, err.Error(), "AclException: "+tc.want, "%s", name)
		require.False(t, strings.Contains(err.Error(), "timeout"), "%s: refused at once, not timed out: %v", name, err)
	}
}
