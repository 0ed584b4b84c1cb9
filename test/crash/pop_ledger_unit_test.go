package crash

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/pkg/protocol"
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
	r := l.report(nil)
	require.Equal(t, 2, r.lost)
	require.Equal(t, []string{"came-back", "never-acked"}, r.lostKeys)
	require.Equal(t, 1, r.ackUnanswered)
	require.Zero(t, r.ackedRedelivered, "an unanswered ack is no timely ack")
	require.Equal(t, 1, r.unackedBack)
}

// TestPopLedgerDuplicateDescendant: a revive duplicate's copy that nobody acknowledged comes back
// with one more reconsume after the other copy's timely ack. Without the broker's evidence that is
// an acked-then-redelivered message; with it, a duplicate's descendant, unless the revive log
// shows the acknowledged copy itself revived.
func TestPopLedgerDuplicateDescendant(t *testing.T) {
	visible := time.Now().Add(time.Hour)
	const retry = "%RETRY%G_T"
	at := func(topic string, q int32, off int64, rc int32) popped {
		e := protocol.ExtraInfo{CkQueueOffset: off, PopTime: 1000 + off, InvisibleTime: 2000, Retry: protocol.RetryMark(topic),
			BrokerName: "broker-a", QueueID: q, QueueOffset: off, HasQueueOffset: true}
		return popped{key: "k", extra: e.String(), realTopic: topic, queueID: q, queueOffset: off, reconsume: rc, visibleAgain: visible}
	}
	orig, a, b, c := at("T", 1, 5, 0), at(retry, 0, 10, 1), at(retry, 0, 11, 1), at(retry, 0, 20, 2)
	l := newPopLedger()
	l.sent("k")
	l.delivered(orig) // left: revived twice (a kill between the copy and the revived record)
	l.delivered(a)
	l.acked(a, time.Now())
	l.delivered(b) // the duplicate, left: it comes back as c
	l.delivered(c)
	l.acked(c, time.Now())

	r := l.report(nil)
	require.Equal(t, 1, r.ackedRedelivered, "without evidence c is unexplained")
	require.Equal(t, []string{"k"}, r.flagged)
	require.Equal(t, 1, r.reviveDups)

	copies := map[string][]storedCopy{"k": {{topic: retry, queueOffset: 10, reconsume: 1},
		{topic: retry, queueOffset: 11, reconsume: 1}, {topic: retry, queueOffset: 20, reconsume: 2}}}
	r = l.report(&popEvidence{copies: copies})
	require.Zero(t, r.ackedRedelivered, "c descends from b, which nobody acknowledged")
	require.Equal(t, 1, r.duplicateBack)

	revivedA := reviveRecord{kind: 3, topic: retry, queueID: 0, start: 10, popTime: 1010, offsets: []int64{10}}
	r = l.report(&popEvidence{copies: copies, records: []reviveRecord{revivedA}})
	require.Equal(t, 1, r.ackedRedelivered, "the acknowledged copy a was revived: a broker bug whatever b did")

	l3 := newPopLedger() // b in a pop whose answer a kill lost: no consumer ever saw it
	l3.sent("k")
	l3.delivered(orig)
	l3.delivered(a)
	l3.acked(a, time.Now())
	l3.delivered(c)
	r = l3.report(&popEvidence{copies: copies})
	require.Zero(t, r.ackedRedelivered, "c descends from b, which no consumer saw")
	require.Equal(t, 1, r.duplicateBack)

	single := map[string][]storedCopy{"k": {{topic: retry, queueOffset: 10, reconsume: 1}, {topic: retry, queueOffset: 20, reconsume: 2}}}
	l2 := newPopLedger()
	l2.sent("k")
	l2.delivered(a)
	l2.acked(a, time.Now())
	l2.delivered(c)
	r = l2.report(&popEvidence{copies: single})
	require.Equal(t, 1, r.ackedRedelivered, "one copy of reconsume 1, acknowledged in time: c must not exist")
}

// TestParseReviveRecord decodes a checkpoint body laid out as docs/pop.md draws it.
func TestParseReviveRecord(t *testing.T) {
	b := []byte{1, 1, 0, 2, 0, 0, 0, 3}
	b = binary.BigEndian.AppendUint64(b, 100)
	b = binary.BigEndian.AppendUint64(b, 1_700_000_000_000)
	b = append(binary.BigEndian.AppendUint16(b, 1), 'T')
	b = append(binary.BigEndian.AppendUint16(b, 2), 'G', '1')
	b = binary.BigEndian.AppendUint64(b, 2000)
	b = binary.BigEndian.AppendUint64(b, 105)
	b = binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(b, 0), 4)
	r, err := parseReviveRecord(b)
	require.NoError(t, err)
	require.Equal(t, reviveRecord{kind: 1, topic: "T", group: "G1", queueID: 3, start: 100, popTime: 1_700_000_000_000,
		invisibleTime: 2000, nextOffset: 105, offsets: []int64{100, 104}}, r)
	_, err = parseReviveRecord(b[:len(b)-1])
	require.Error(t, err)
}
