// Package javatest runs the official Apache RocketMQ Java clients, 4.9.8 and 5.3.3, unchanged from
// Maven Central, against our mqnamesrv and mqbroker (make test-java). The scenarios are JUnit tests
// in the Maven project beside this file (see docs/java.md); this test starts the servers they
// need, runs one Maven build in which each client version gets one JVM, and fails with every
// failed scenario's message and stack trace from the surefire reports.
package javatest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rocketgo/rocketgo/test/e2e/cluster"
)

// The client versions, one Maven module each (client-<version>).
var versions = []string{"4.9.8", "5.3.3"}

// TestJavaClients starts a plain, an ACL and a TLS cluster and runs every scenario of both client
// versions against them at once, so that MixedVersionTest can put a 4.9.8 and a 5.3.3 consumer in
// one group.
func TestJavaClients(t *testing.T) {
	if os.Getenv("JAVA_SUITE") == "" {
		t.Skip("set JAVA_SUITE=1 (make test-java) to run the Java client suite; it needs java 17+ and mvn")
	}
	mvn := requireTools(t)
	dir := projectDir(t)
	clearReports(t, dir)
	resolve(t, mvn, dir)

	plain := cluster.Start(t, cluster.Options{ClusterName: "JavaCluster", BrokerProps: plainProps()})
	acl := cluster.Start(t, cluster.Options{ClusterName: "JavaAclCluster", BrokerProps: aclProps(t)})
	tls := cluster.Start(t, cluster.Options{ClusterName: "JavaTlsCluster", BrokerProps: tlsProps(t)})

	props := map[string]string{
		"rmq.namesrv":     plain.NamesrvAddr(),
		"rmq.cluster":     plain.Name,
		"rmq.acl.namesrv": acl.NamesrvAddr(),
		"rmq.tls.namesrv": tls.NamesrvAddr(),
		"rmq.rendezvous":  t.TempDir(),
	}
	runErr := runSuite(t, mvn, dir, props)
	reports := readReports(t, dir)
	logResults(t, reports)
	checkResults(t, reports, runErr)
}

// plainProps: SQL92 filtering on (Java's default is off), a transaction check-back within a
// second or two instead of a minute, for TransactionTest, and RECALL_MESSAGE on (off by
// default, as in Java), for TimerTest.
func plainProps() map[string]string {
	return map[string]string{
		"enablePropertyFilter":     "true",
		"transactionCheckInterval": "1000",
		"transactionTimeOut":       "1000",
		"traceTopicEnable":         "true",
		"recallMessageEnable":      "true",
	}
}

// aclACL is the broker's plain_acl.yml for AclTest: one account with publish and subscribe rights
// on everything but one denied topic, and no address whitelisted, so every request must be signed.
const aclACL = `# plain_acl.yml written by test/java
globalWhiteRemoteAddresses:

accounts:
  - accessKey: java-access-key
    secretKey: java-secret-key
    whiteRemoteAddress:
    admin: false
    defaultTopicPerm: PUB|SUB
    defaultGroupPerm: SUB
    topicPerms:
      - JavaForbiddenTopic=DENY
`

func aclProps(t *testing.T) map[string]string {
	path := filepath.Join(t.TempDir(), "plain_acl.yml")
	if err := os.WriteFile(path, []byte(aclACL), 0o600); err != nil {
		t.Fatalf("javatest: %v", err)
	}
	return map[string]string{"aclEnable": "true", "aclConfigPath": path}
}

// tlsProps: the broker takes TLS only, with a certificate from files; the name server keeps its
// default (permissive, self-signed).
func tlsProps(t *testing.T) map[string]string {
	certPath, keyPath, _ := cluster.WriteSelfSignedCert(t, t.TempDir())
	return map[string]string{
		"tls.server.mode":     "enforcing",
		"tls.server.certPath": certPath,
		"tls.server.keyPath":  keyPath,
	}
}
