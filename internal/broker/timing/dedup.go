package timing

import (
	"fmt"

	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// dedupRead is how many CommitLog bytes one read of the scan takes (more for a larger record).
const dedupRead = 1 << 20

// dedup finds, after a crash, the deliveries made between the last checkpoint and the crash.
// Processing after the checkpoint resumes in the order it had before, and delivery writes in that
// order, so the messages it wrote form a prefix of what it is about to write again, in the
// CommitLog after the checkpoint's DedupFrom. For each message it would write, find looks for its
// write from where the previous one was found: a record with the same topic and UNIQ_KEY and with
// TIMER_DEQUEUE_MS set. The first message not found ends the scan: it and all after it are new.
// The scan reads only what the CommitLog held when the broker started (end).
type dedup struct {
	st       Store
	pos, end int64
	matched  int
}

// find reports whether a delivery of topic/uniqKey lies in [pos, end), and moves past it.
func (d *dedup) find(topic, uniqKey string) (bool, error) {
	for d.pos < d.end {
		found, next, err := d.scan(topic, uniqKey)
		if err != nil {
			d.pos = d.end
			return false, err
		}
		d.pos = next
		if found {
			d.matched++
			return true, nil
		}
	}
	return false, nil
}

// scan looks through one read from pos; next is where the next scan starts (after the match, or
// after the last whole record read).
func (d *dedup) scan(topic, uniqKey string) (found bool, next int64, err error) {
	want := dedupRead
	for {
		data, ok := d.st.ReadCommitLog(d.pos, want)
		if !ok {
			return false, d.end, nil
		}
		found, used, short := matchIn(data.Bytes, topic, uniqKey)
		data.Release()
		switch {
		case used > 0 || found:
			return found, d.pos + int64(used), nil
		case short > want:
			want = short // the record at pos is larger than one read
		default:
			return false, 0, fmt.Errorf("timing: unreadable CommitLog record at %d", d.pos)
		}
	}
}

// matchIn walks the records in b. It returns found with used = the bytes up to and including the
// match, else used = the bytes of whole records walked; short is the size of a record cut off at
// b's end.
func matchIn(b []byte, topic, uniqKey string) (found bool, used int, short int) {
	for len(b)-used >= 8 {
		size, magic, _ := message.Peek(b[used:])
		if size <= 0 {
			return false, used, 0
		}
		if int(size) > len(b)-used {
			return false, used, int(size)
		}
		if magic != message.MagicBlank && isDelivery(b[used:used+int(size)], topic, uniqKey) {
			return true, used + int(size), 0
		}
		used += int(size)
	}
	return false, used, 0
}

// isDelivery reports whether rec is a timer delivery of uniqKey to topic.
func isDelivery(rec []byte, topic, uniqKey string) bool {
	v, err := message.Parse(rec)
	if err != nil || string(v.Topic()) != topic {
		return false
	}
	if _, ok := v.Property(message.PropertyTimerDequeueMS); !ok {
		return false
	}
	id, _ := v.Property(message.PropertyUniqClientMessageID)
	return string(id) == uniqKey
}
