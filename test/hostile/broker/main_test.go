// Package broker plays hostile clients against the real mqbroker and mqnamesrv binaries
// (test/e2e/cluster) and asserts the broker's new answers to issue 7's rows that concern it:
// deleting what is not a topic or is a system topic (rows 1, 2), reads by offset of another
// topic's message with ACL on (row 3), held-pull floods (row 5), heartbeat group floods (row 8)
// and metadata dumps to non-admin accounts (row 11), with more of the same kinds. While each
// hostile client runs, a well-behaved Go producer and push consumer keep working: under 1 % of
// sends fail and every acknowledged message is read back. Memory is read from the broker's own
// metrics (go_memstats_heap_inuse_bytes) and /proc/<pid>/status (VmRSS).
package broker

import (
	"os"
	"testing"

	"github.com/apache/rocketmq-client-go/v2/rlog"
)

func TestMain(m *testing.M) {
	rlog.SetLogLevel("error")
	os.Exit(m.Run())
}
