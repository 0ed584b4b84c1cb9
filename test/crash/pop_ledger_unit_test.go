package crash

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestPopLedgerUnansweredAck: a send whose last delivery's ack got no answer is not lost (the
// broker may have applied that ack); one whose unanswered ack was followed by another delivery
// that nobody acknowledged is, and so is one never acknowledged at all.
func TestPopLedgerUnansweredAck(t *testing.T) {
	l := newPopLedger()
	visible := time.Now().Add(time.Hour)
	d := func(key string, rc int32) popped {
		return popped{key: key, realTopic: "T", queueOffset: 1, reconsume: rc, visibleAgain: visible}
	}
	for _, k := range []string{"answered", "unanswered", "came-back", "never-acked"} {
		l.sent(k)
	}
	l.delivered(d("answered", 0))
	l.acked(d("answered", 0), time.Now())
	l.delivered(d("unanswered", 0))
	l.ackUnanswered(d("unanswered", 0))
	l.delivered(d("came-back", 0))
	l.ackUnanswered(d("came-back", 0))
	l.delivered(d("came-back", 1)) // the ack was not applied: it came back, and was left
	l.delivered(d("never-acked", 0))

	require.Equal(t, 2, l.unconsumed())
	r := l.report()
	require.Equal(t, 2, r.lost)
	require.Equal(t, []string{"came-back", "never-acked"}, r.lostKeys)
	require.Equal(t, 1, r.ackUnanswered)
	require.Zero(t, r.ackedRedelivered, "an unanswered ack is no timely ack")
	require.Equal(t, 1, r.unackedBack)
}
