package mqbench

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProgressLines: one line with the phases running, counts so far and the rate since the
// last line; nothing when no phase runs.
func TestProgressLines(t *testing.T) {
	start := time.Unix(1000, 0)
	pr := &progress{start: start}
	assert.Empty(t, pr.line(start.Add(time.Second)), "no phase running")

	p := &producer{}
	pr.prod.set(p, true, start)
	p.sent.Store(1200)
	p.acked.Store(1000)
	p.failed.Store(3)
	assert.Equal(t, "mqbench     2s: produce sent 1200, acked 1000, failed 3, 500 msgs/s\n", pr.line(start.Add(2*time.Second)))

	c := &consumer{}
	pr.cons.set(c, true, start.Add(2*time.Second))
	p.acked.Store(1400)
	c.pulls.Store(10)
	c.msgs.Store(300)
	c.failedPulls.Store(1)
	assert.Equal(t, "mqbench     3s: produce sent 1200, acked 1400, failed 3, 400 msgs/s; "+
		"consume pulls 10, received 300, failed pulls 1, 300 msgs/s\n", pr.line(start.Add(3*time.Second)))

	pr.prod.set(nil, false, start)
	assert.True(t, strings.HasPrefix(pr.line(start.Add(4*time.Second)), "mqbench     4s: consume pulls 10, received 300"))

	var none *progress // no writer: every call is a no-op
	none.watchProducer(p)
	none.watchConsumer(nil)
	none.stop()
	assert.Nil(t, startProgress(nil, time.Second))
}

// TestProgressDuringARun: a run that lasts writes progress lines for each phase, and the report
// is what it would be without them.
func TestProgressDuringARun(t *testing.T) {
	var out bytes.Buffer
	// One message is dropped, so consuming waits for --idle-timeout: the run lasts ≥ 300 ms.
	peer := startPeer(t, &scriptedPeer{store: true, dropSeq: 5, dupSeq: -1, keys: testKeys()})
	rep := peerRun(t, Options{Messages: 100, Size: 10, Concurrency: 2, Window: 4, Timeout: time.Minute,
		IdleTimeout: 300 * time.Millisecond, Progress: &out, ProgressEvery: 20 * time.Millisecond}, peer)
	assert.Equal(t, int64(100), rep.Produce.Messages)
	assert.Equal(t, int64(1), rep.Verify.Missing)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.GreaterOrEqual(t, len(lines), 2, "%s", out.String())
	last := lines[len(lines)-1]
	assert.Contains(t, last, "consume pulls ")
	assert.Contains(t, last, "received 99,", "every message the peer kept, read")
	for _, l := range lines {
		assert.True(t, strings.HasPrefix(l, "mqbench "), "%q", l)
	}
}
