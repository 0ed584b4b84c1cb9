package interop

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/rocketgo/rocketgo/test/e2e/cluster"
)

// written is what a scenario put into a store: the names to read back through a broker.
type written struct {
	topics     []string       // user topics, every queue of which is pulled
	systemRead []queueRef     // system queues that hold messages too (the delay queues)
	groups     []string       // subscription groups created
	offsets    []offsetRef    // committed consumer offsets
	keys       []string       // message keys to query
	msgIDs     []string       // unique ids (UNIQ_KEY) to query
	offsetIDs  []string       // offsetMsgIds to view
	queues     map[string]int // topic → read queue count
}

type queueRef struct {
	topic string
	queue int
}

type offsetRef struct {
	group, topic string
	queue        int
}

// snapshot is everything a broker answers about a store, through the wire.
type snapshot struct {
	topics  map[string]topicConfig
	groups  map[string]groupConfig
	delay   map[string]int64
	offsets map[offsetRef]int64
	records map[queueRef][]cluster.Record
	keyed   map[string][]cluster.Record // key → QUERY_MESSAGE, by CommitLog offset
	unique  map[string][]cluster.Record // msgId → QUERY_MESSAGE with _UNIQUE_KEY_QUERY
	byID    map[string]cluster.Record   // offsetMsgId → VIEW_MESSAGE_BY_ID
}

// takeSnapshot reads back, through the broker at addr, everything w names.
func takeSnapshot(t *testing.T, addr string, w *written) *snapshot {
	t.Helper()
	s := &snapshot{
		topics: allTopics(t, addr), groups: allGroups(t, addr), delay: delayOffsets(t, addr),
		offsets: map[offsetRef]int64{}, records: map[queueRef][]cluster.Record{},
		keyed: map[string][]cluster.Record{}, unique: map[string][]cluster.Record{}, byID: map[string]cluster.Record{},
	}
	for _, o := range w.offsets {
		s.offsets[o] = consumerOffset(t, addr, o.group, o.topic, o.queue)
	}
	for _, q := range w.allQueues() {
		s.records[q] = pullAll(t, addr, q.topic, q.queue)
	}
	for _, k := range w.keys {
		s.keyed[k] = byOffset(queryByKey(t, addr, w.topicOfKey(k), k, false))
	}
	for _, id := range w.msgIDs {
		s.unique[id] = byOffset(queryByKey(t, addr, w.topics[0], id, true))
	}
	for _, id := range w.offsetIDs {
		s.byID[id] = viewByID(t, addr, id)
	}
	return s
}

// summary counts what the snapshot holds, for the test log.
func (s *snapshot) summary() string {
	n := 0
	for _, recs := range s.records {
		n += len(recs)
	}
	return fmt.Sprintf("%d records in %d queues, %d key and %d unique-key queries, %d ids viewed, %d topics, %d groups, "+
		"%d consumer offsets, delay offsets %v", n, len(s.records), len(s.keyed), len(s.unique), len(s.byID),
		len(s.topics), len(s.groups), len(s.offsets), s.delay)
}

// allQueues lists every queue of the user topics and the system queues.
func (w *written) allQueues() []queueRef {
	var out []queueRef
	for _, topic := range w.topics {
		for q := range w.queues[topic] {
			out = append(out, queueRef{topic, q})
		}
	}
	return append(out, w.systemRead...)
}

// topicOfKey: keys are "<topic>:<n>".
func (w *written) topicOfKey(key string) string {
	topic, _, _ := strings.Cut(key, ":")
	return topic
}

func byOffset(recs []cluster.Record) []cluster.Record {
	sort.Slice(recs, func(i, j int) bool { return recs[i].PhysicalOffset < recs[j].PhysicalOffset })
	return recs
}

// requireSameSnapshot requires the target broker to answer what the source broker answered.
// System topics and groups each broker creates for itself are compared only where both have them.
func requireSameSnapshot(t *testing.T, src, dst *snapshot, w *written) {
	t.Helper()
	requireSameTopics(t, src.topics, dst.topics, w)
	for _, name := range w.groups {
		if !reflect.DeepEqual(src.groups[name], dst.groups[name]) {
			t.Errorf("group %s: %+v after the move, %+v before", name, dst.groups[name], src.groups[name])
		}
	}
	// A level missing from the table is at offset 0; a broker may add such entries as its
	// scheduler visits the levels (Apache 5.3.3 does, soon after start).
	for level := range union(src.delay, dst.delay) {
		if src.delay[level] != dst.delay[level] {
			t.Errorf("delay offsets: %v after the move, %v before", dst.delay, src.delay)
			break
		}
	}
	for o, off := range src.offsets {
		if dst.offsets[o] != off {
			t.Errorf("consumer offset of %s on %s/%d: %d after the move, %d before", o.group, o.topic, o.queue, dst.offsets[o], off)
		}
	}
	for q, recs := range src.records {
		requireSameRecordList(t, fmt.Sprintf("queue %s/%d", q.topic, q.queue), recs, dst.records[q])
	}
	for k, recs := range src.keyed {
		requireSameRecordList(t, "QUERY_MESSAGE key "+k, recs, dst.keyed[k])
	}
	for id, recs := range src.unique {
		requireSameRecordList(t, "QUERY_MESSAGE unique key "+id, recs, dst.unique[id])
	}
	for id, rec := range src.byID {
		requireSameRecordList(t, "VIEW_MESSAGE_BY_ID "+id, []cluster.Record{rec}, []cluster.Record{dst.byID[id]})
	}
}

// requireSameTopics: every user topic and every topic both tables have is configured alike;
// a system topic only the source had is reported.
func requireSameTopics(t *testing.T, src, dst map[string]topicConfig, w *written) {
	t.Helper()
	user := map[string]bool{}
	for _, name := range w.topics {
		user[name] = true
	}
	for name, tc := range src {
		got, ok := dst[name]
		switch {
		case !ok && user[name]:
			t.Errorf("topic %s is gone after the move", name)
		case !ok:
			t.Logf("note: system topic %s of the source broker is not in the target's table", name)
		case got != tc:
			t.Errorf("topic %s: %+v after the move, %+v before", name, got, tc)
		}
	}
}

// requireSameRecordList requires equal, non-empty record lists, naming the first difference.
func requireSameRecordList(t *testing.T, what string, want, got []cluster.Record) {
	t.Helper()
	if len(want) == 0 {
		t.Errorf("%s: the source broker answered no records (the scenario wrote some)", what)
		return
	}
	if len(got) != len(want) {
		t.Errorf("%s: %d records after the move, %d before", what, len(got), len(want))
		return
	}
	for i := range want {
		if !reflect.DeepEqual(want[i], got[i]) {
			t.Errorf("%s: record %d differs after the move:\n got %+v\nwant %+v", what, i, brief(got[i]), brief(want[i]))
			return
		}
	}
}

// brief is a record without its (possibly long) body, for messages.
func brief(r cluster.Record) string {
	return fmt.Sprintf("{topic %s queue %d@%d phys %d size %d sysFlag %d born %d stored %d reconsume %d body %d bytes props %v}",
		r.Topic, r.QueueID, r.QueueOffset, r.PhysicalOffset, r.TotalSize, r.SysFlag, r.BornTimestamp,
		r.StoreTimestamp, r.ReconsumeTimes, len(r.Body), r.Properties)
}

// union is the set of keys of a and b.
func union(a, b map[string]int64) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}
