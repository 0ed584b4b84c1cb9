// Package interop runs Apache RocketMQ's own name server and broker, from Maven Central, beside
// ours (make test-interop): each registers with the other's name server and clients route across
// both; Apache's master feeds our slave and ours feeds Apache's, byte for byte and with SYNC_MASTER
// acknowledgements; and a store written by one broker is opened by the other with every message,
// offset, topic, group and delay offset intact. docs/migration.md describes the path these tests
// walk; docs/java.md says what was tested.
//
// The Maven project beside this file (pom.xml, servers-<version>/pom.xml) only resolves Apache's
// artifacts: the tests ask it for a class path and start NamesrvStartup and BrokerStartup from it
// with small heaps. Everything listens and connects on 127.0.0.1 only (4.9's servers also bind the
// wildcard address, which they offer no key to change).
package interop

import (
	"os"
	"testing"

	"github.com/apache/rocketmq-client-go/v2/rlog"
)

// apacheVersions are the Apache RocketMQ releases whose servers the suite runs: the newest 4.9 and
// 5.3 whose rocketmq-broker and rocketmq-namesrv Maven Central serves (4.9.8 published only the
// client side; its broker and name server are not there).
var apacheVersions = []string{"4.9.7", "5.3.3"}

func TestMain(m *testing.M) {
	rlog.SetLogLevel("error")
	os.Exit(m.Run())
}

// requireSuite skips unless INTEROP=1 (make test-interop sets it): the suite needs java, mvn and,
// the first time, Maven Central.
func requireSuite(t *testing.T) {
	t.Helper()
	if os.Getenv("INTEROP") == "" {
		t.Skip("set INTEROP=1 (make test-interop) to run Apache's servers beside ours; needs java 17+ and mvn")
	}
}

// eachVersion runs f once per Apache version, as parallel subtests named after it (at most two
// scenarios run at once: `go test -parallel 2`). INTEROP_VERSION picks one version.
func eachVersion(t *testing.T, f func(t *testing.T, version string)) {
	requireSuite(t)
	t.Parallel()
	for _, v := range apacheVersions {
		if only := os.Getenv("INTEROP_VERSION"); only != "" && only != v {
			continue
		}
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			f(t, v)
		})
	}
}
