package crash

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// A POP crash run that reports a delivery after a timely ack explains itself: for each such key
// it prints what the consumers saw (every delivery and ack, with its POP_CK and times), the kills
// and restarts around it, the key's copies in the retry topic and every revive-log record that
// names one of the key's stored records (checkpoints, acks, revived records, decoded as
// docs/pop.md draws them), and what each broker start recovered. Times are seconds since the run
// began, the broker's store times included (one machine, one clock).

// explained are the keys a run explains: those delivered after a timely ack and, with
// CRASH_EXPLAIN=1 (to see what an explanation looks like), a few revive duplicates and keys
// delivered more than once.
func explained(r popReport) []string {
	keys := slices.Clone(r.flagged)
	if os.Getenv("CRASH_EXPLAIN") == "1" {
		keys = append(keys, r.dupKeys[:min(3, len(r.dupKeys))]...)
		keys = append(keys, r.twiceKeys[:min(2, len(r.twiceKeys))]...)
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// popReviveQueues is the revive topic's queue count: reviveQueueNum's default (the run does not set
// it).
const popReviveQueues = 8

// popTimeline records the kills and restarts of a run.
type popTimeline struct {
	t0    time.Time
	mu    sync.Mutex
	marks []string
}

func newPopTimeline() *popTimeline { return &popTimeline{t0: time.Now()} }

func (tl *popTimeline) mark(what string) {
	tl.mu.Lock()
	tl.marks = append(tl.marks, fmt.Sprintf("%s %s", tl.since(time.Now()), what))
	tl.mu.Unlock()
}

// since formats at as seconds since the run began.
func (tl *popTimeline) since(at time.Time) string {
	return fmt.Sprintf("%+.3fs", at.Sub(tl.t0).Seconds())
}

func (tl *popTimeline) sinceMs(ms int64) string { return tl.since(time.UnixMilli(ms)) }

// reviveRecord is a revive-log record as docs/pop.md draws it, with where it is stored.
type reviveRecord struct {
	reviveQueue   int
	queueOffset   int64
	stored        int64 // ms
	kind          byte
	topic, group  string
	queueID       int32
	start         int64
	popTime       int64
	invisibleTime int64 // checkpoint only
	nextOffset    int64 // checkpoint only
	offsets       []int64
}

var errReviveRecord = errors.New("not a revive record of docs/pop.md's layout")

// parseReviveRecord decodes a record body: 24 fixed bytes, two names, a checkpoint's invisible
// time and next offset, then count 32-bit distances from the start offset.
func parseReviveRecord(b []byte) (reviveRecord, error) {
	var r reviveRecord
	if len(b) < 24 || b[0] != 1 || b[1] < 1 || b[1] > 3 {
		return r, errReviveRecord
	}
	r.kind = b[1]
	n := int(binary.BigEndian.Uint16(b[2:]))
	r.queueID = int32(binary.BigEndian.Uint32(b[4:]))
	r.start = int64(binary.BigEndian.Uint64(b[8:]))
	r.popTime = int64(binary.BigEndian.Uint64(b[16:]))
	rest := b[24:]
	var err error
	if r.topic, rest, err = parseReviveName(rest); err != nil {
		return r, err
	}
	if r.group, rest, err = parseReviveName(rest); err != nil {
		return r, err
	}
	if r.kind == 1 {
		if len(rest) < 16 {
			return r, errReviveRecord
		}
		r.invisibleTime = int64(binary.BigEndian.Uint64(rest))
		r.nextOffset = int64(binary.BigEndian.Uint64(rest[8:]))
		rest = rest[16:]
	}
	if len(rest) != 4*n {
		return r, errReviveRecord
	}
	for i := range n {
		r.offsets = append(r.offsets, r.start+int64(binary.BigEndian.Uint32(rest[4*i:])))
	}
	return r, nil
}

func parseReviveName(b []byte) (string, []byte, error) {
	if len(b) < 2 || len(b) < 2+int(binary.BigEndian.Uint16(b)) {
		return "", nil, errReviveRecord
	}
	n := int(binary.BigEndian.Uint16(b))
	return string(b[2 : 2+n]), b[2+n:], nil
}

func (r reviveRecord) names(topic string, queueID int32, offset int64) bool {
	return r.topic == topic && r.queueID == queueID && slices.Contains(r.offsets, offset)
}

func (r reviveRecord) String(tl *popTimeline) string {
	kind := [...]string{1: "ck", 2: "ack", 3: "rv"}[r.kind]
	s := fmt.Sprintf("revive q%d@%d stored %s %-3s %s/%d start=%d popTime=%s", r.reviveQueue, r.queueOffset,
		tl.sinceMs(r.stored), kind, r.topic, r.queueID, r.start, tl.sinceMs(r.popTime))
	if r.kind == 1 {
		s += fmt.Sprintf(" visibleAgain=%s next=%d", tl.sinceMs(r.popTime+r.invisibleTime), r.nextOffset)
	}
	return s + fmt.Sprintf(" offsets=%v", r.offsets)
}

// storedCopy is one stored record of a key.
type storedCopy struct {
	topic       string
	queueID     int32
	queueOffset int64
	reconsume   int32
	stored      int64
	props       string
}

// popEvidence is what the broker holds about the run: every copy in the retry topic by key, and
// the revive log.
type popEvidence struct {
	copies  map[string][]storedCopy
	records []reviveRecord
	errs    []string
}

// readEvidence pulls the group's POP retry topic and every queue of the revive topic.
func readEvidence(ctx context.Context, raw *rawClient, cluster, group, topic string) *popEvidence {
	ev := &popEvidence{copies: map[string][]storedCopy{}}
	retry := systopic.PopRetry(group, topic)
	ev.readQueue(ctx, raw, retry, 0, func(m *message.MessageExt) {
		k := string(m.Body)
		ev.copies[k] = append(ev.copies[k], storedCopy{topic: retry, queueOffset: m.QueueOffset,
			reconsume: m.ReconsumeTimes, stored: m.StoreTimestamp, props: readableProps(m.Properties)})
	})
	revive := systopic.Revive(cluster)
	for q := range popReviveQueues {
		ev.readQueue(ctx, raw, revive, q, func(m *message.MessageExt) {
			r, err := parseReviveRecord(m.Body)
			if err != nil {
				ev.errs = append(ev.errs, fmt.Sprintf("%s/%d@%d: %v", revive, q, m.QueueOffset, err))
				return
			}
			r.reviveQueue, r.queueOffset, r.stored = q, m.QueueOffset, m.StoreTimestamp
			ev.records = append(ev.records, r)
		})
	}
	return ev
}

// readQueue pulls a queue from its min to its max offset.
func (ev *popEvidence) readQueue(ctx context.Context, raw *rawClient, topic string, q int, each func(*message.MessageExt)) {
	lo, err := raw.minOffset(ctx, topic, q)
	if err != nil {
		ev.errs = append(ev.errs, err.Error())
		return
	}
	hi, err := raw.maxOffset(ctx, topic, q)
	if err != nil {
		ev.errs = append(ev.errs, err.Error())
		return
	}
	for off := lo; off < hi; {
		res, err := raw.pull(ctx, "G_POP_CRASH_EVIDENCE", topic, q, off, 32)
		if err != nil || len(res.records) == 0 {
			ev.errs = append(ev.errs, fmt.Sprintf("pull %s/%d@%d: %v %+v", topic, q, off, err, res))
			return
		}
		for _, m := range res.records {
			each(m)
		}
		off = res.records[len(res.records)-1].QueueOffset + 1
	}
}

func readableProps(p string) string {
	return strings.NewReplacer("\x01", "=", "\x02", " ").Replace(p)
}

// explain tells the story of each key.
func (r *popRun) explain(ev *popEvidence, keys []string, logs []string) string {
	var b strings.Builder
	tl := r.tl
	fmt.Fprintf(&b, "run timeline: %s\n", strings.Join(tl.marks, ", "))
	for _, e := range ev.errs {
		fmt.Fprintf(&b, "evidence: %s\n", e)
	}
	for _, k := range keys {
		r.explainKey(&b, ev, k)
	}
	for _, path := range logs {
		fmt.Fprintf(&b, "%s:\n%s", path, grepLines(path, "pop state recovered", "store recovered"))
	}
	return b.String()
}

// storedRecord names a stored record: topic, queue, queue offset.
type storedRecord struct {
	topic string
	q     int32
	off   int64
}

func (r *popRun) explainKey(b *strings.Builder, ev *popEvidence, key string) {
	fmt.Fprintf(b, "== %s: what the consumers saw\n", key)
	recs := r.explainEvents(b, ev, key)
	fmt.Fprintf(b, "  stored copies in the retry topic:\n")
	for _, c := range ev.copies[key] {
		fmt.Fprintf(b, "  %s/0@%d rc=%d stored %s %s\n", c.topic, c.queueOffset, c.reconsume, r.tl.sinceMs(c.stored), c.props)
		if sr := (storedRecord{c.topic, 0, c.queueOffset}); !slices.Contains(recs, sr) {
			recs = append(recs, sr)
		}
	}
	fmt.Fprintf(b, "  revive-log records naming them:\n")
	for _, rr := range ev.records {
		for _, sr := range recs {
			if rr.names(sr.topic, sr.q, sr.off) {
				fmt.Fprintf(b, "  [%s/%d@%d] %s\n", sr.topic, sr.q, sr.off, rr.String(r.tl))
			}
		}
	}
}

// explainEvents prints key's deliveries and acks, each ack with what the revive log holds of
// it, and returns the stored records they name.
func (r *popRun) explainEvents(b *strings.Builder, ev *popEvidence, key string) []storedRecord {
	var recs []storedRecord
	for _, e := range r.led.history(key) {
		fmt.Fprintf(b, "  %s %-15s %s rc=%d visibleAgain=%s POP_CK=%q\n", r.tl.since(e.at), e.kind(), e.m.record(),
			e.m.reconsume, r.tl.since(e.m.visibleAgain), e.m.extra)
		if e.ack {
			fmt.Fprintf(b, "      %s\n", ev.verdict(r.tl, e.m))
		}
		if sr := (storedRecord{e.m.realTopic, e.m.queueID, e.m.queueOffset}); !slices.Contains(recs, sr) {
			recs = append(recs, sr)
		}
	}
	return recs
}

// kind names the event in an explanation.
func (e popEvent) kind() string {
	switch {
	case e.unanswered:
		return "ack unanswered"
	case e.ack && e.timely:
		return "ack OK timely"
	case e.ack:
		return "ack OK late"
	}
	return "delivery"
}

// grepLines returns the lines of a file that hold any of the strings.
func grepLines(path string, subs ...string) string {
	f, err := os.Open(path)
	if err != nil {
		return err.Error() + "\n"
	}
	defer f.Close()
	var b strings.Builder
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		for _, s := range subs {
			if strings.Contains(sc.Text(), s) {
				b.WriteString(sc.Text() + "\n")
				break
			}
		}
	}
	return b.String()
}

// duplicateDescendant reports whether a delivery of key with reconsumeTimes rc, after timely
// acks of the key's copies of lower reconsumeTimes, descends from a copy nobody acknowledged in
// time: the retry topic holds a copy of reconsumeTimes rc-1 that is not among the
// timely-acknowledged records, and none of the timely-acknowledged messages was revived. Without
// evidence (nil) nothing is explained.
func (ev *popEvidence) duplicateDescendant(key string, rc int32, timely map[string]bool, acks []popped) bool {
	if ev == nil || rc < 2 {
		return false
	}
	for _, a := range acks {
		if _, ok := ev.settledBy(a, 3); ok {
			return false
		}
	}
	for _, c := range ev.copies[key] {
		if c.reconsume == rc-1 && !timely[c.record()] {
			return true
		}
	}
	return false
}

func (c storedCopy) record() string {
	return popped{realTopic: c.topic, queueID: c.queueID, queueOffset: c.queueOffset}.record()
}

// settledBy finds the record of a kind (2 ack, 3 revived) that settled the popped message m in
// the checkpoint its POP_CK names.
func (ev *popEvidence) settledBy(m popped, kind byte) (reviveRecord, bool) {
	e, err := protocol.ParseExtraInfo(m.extra)
	if err != nil {
		return reviveRecord{}, false
	}
	for _, r := range ev.records {
		if r.kind == kind && r.start == e.CkQueueOffset && r.popTime == e.PopTime && r.names(m.realTopic, m.queueID, m.queueOffset) {
			return r, true
		}
	}
	return reviveRecord{}, false
}

// verdict says, for an acknowledged delivery, whether the revive log holds its ack and whether
// its checkpoint revived it anyway.
func (ev *popEvidence) verdict(tl *popTimeline, m popped) string {
	s := "no ack record in the revive log"
	if r, ok := ev.settledBy(m, 2); ok {
		s = "ack record " + r.String(tl)
	}
	if r, ok := ev.settledBy(m, 3); ok {
		s += "; REVIVED by " + r.String(tl)
	}
	return s
}
