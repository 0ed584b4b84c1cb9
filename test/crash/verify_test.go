package crash

import (
	"context"
	"fmt"
	"hash/crc32"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// stored is what a queue scan found at one queue offset.
type stored struct {
	key       string
	uniqID    string
	tags      string
	phyOffset int64
	bodyCRC   uint32
	bodyLen   int
	padLen    int    // length of padProp, -1 without it
	propsBad  string // why the properties string is malformed, "" if it is not
}

// verdict is the outcome of reading back a run's acknowledged messages.
type verdict struct {
	acked int
	// lost: acknowledged messages that are not readable at their queue offset, by key or by
	// offset msgId (each counted once).
	lost int
	// Per read path, one line per acknowledged message that path could not find intact.
	missingByPull, missingByKey, missingByID []string
	// indexMisses: acknowledged messages a pull finds intact but a key or id look-up does not
	// (an index or look-up bug whatever the flush mode).
	indexMisses int
	// holes: queue offsets between a queue's min and max that cannot be pulled, or records out of
	// place (wrong queue offset, queue or topic).
	holes []string
	// strangers: records whose key was never sent or whose body or properties differ from what
	// was sent.
	strangers []string
	// torn: records whose properties string is cut short (zero bytes where the rest should be):
	// a record the kill interrupted, yet accepted by recovery.
	torn []string
	// survivors: keys stored although their send was not acknowledged (allowed).
	survivors int
	// duplicates: keys stored at more than one queue offset (allowed, not expected without retries).
	duplicates int
	// queueRanges: min and max offset of each queue at verification time.
	queueRanges map[int][2]int64
}

// verifyGroup is the consumer group of the raw verification pulls.
const verifyGroup = "CRASH_VERIFY_GROUP"

// verifyAll reads the whole topic back and checks every acknowledged message three ways: a PULL at
// its queue offset, QUERY_MESSAGE by its key, VIEW_MESSAGE_BY_ID at its offset msgId's commit log
// offset. sent holds every attempted send (acknowledged or not) by key.
func verifyAll(t testing.TB, rc *rawClient, topic string, queues int, acks []*ack, sent map[string]sent) *verdict {
	t.Helper()
	v := &verdict{acked: len(acks), queueRanges: map[int][2]int64{}}
	waitDispatched(t, rc, topic, acks)

	// 1. Scan every queue from its min to its max offset.
	found := map[int]map[int64]stored{}
	where := map[string][]string{} // key → "q/off" it was found at
	for q := range queues {
		found[q] = scanQueue(t, rc, topic, q, v, sent)
		for off, s := range found[q] {
			where[s.key] = append(where[s.key], fmt.Sprintf("%d/%d", q, off))
		}
	}
	ackedKeys := make(map[string]bool, len(acks))
	for _, a := range acks {
		ackedKeys[a.key] = true
	}
	for key, places := range where {
		if len(places) > 1 {
			v.duplicates++
		}
		if !ackedKeys[key] {
			v.survivors++
		}
	}

	// 2. Each acknowledged message at its queue offset.
	bad := make([]bool, len(acks))
	for i, a := range acks {
		s, ok := found[a.queueID][a.queueOffset]
		var why string
		switch {
		case !ok:
			why = "no record at its queue offset"
		case s.key != a.key:
			why = fmt.Sprintf("queue offset holds key %q instead", s.key)
		case s.uniqID != a.uniqID:
			why = fmt.Sprintf("UNIQ_KEY %q instead", s.uniqID)
		case s.phyOffset != a.phyOffset:
			why = fmt.Sprintf("at commit log offset %d instead", s.phyOffset)
		case s.bodyCRC != a.bodyCRC || s.bodyLen != a.bodyLen:
			why = "body differs"
		}
		if why != "" {
			bad[i] = true
			if places := where[a.key]; len(places) > 0 {
				why += fmt.Sprintf(" (the key is stored at queue/offset %v)", places)
			}
			v.missingByPull = append(v.missingByPull, a.String()+": "+why)
		}
	}

	// 3. By key and by offset msgId, from a few goroutines over one connection.
	type miss struct {
		i        int
		byKey    string
		byID     string
		inQueues bool
	}
	work := make(chan int)
	misses := make(chan miss)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				a := acks[i]
				m := miss{i: i, byKey: checkByKey(rc, topic, a), byID: checkByID(rc, topic, a), inQueues: !bad[i]}
				if m.byKey != "" || m.byID != "" {
					misses <- m
				}
			}
		}()
	}
	go func() {
		for i := range acks {
			work <- i
		}
		close(work)
		wg.Wait()
		close(misses)
	}()
	for m := range misses {
		a := acks[m.i]
		if m.byKey != "" {
			v.missingByKey = append(v.missingByKey, a.String()+": "+m.byKey)
		}
		if m.byID != "" {
			v.missingByID = append(v.missingByID, a.String()+": "+m.byID)
		}
		if m.inQueues {
			v.indexMisses++
		}
		bad[m.i] = true
	}
	for _, b := range bad {
		if b {
			v.lost++
		}
	}
	sort.Strings(v.missingByKey)
	sort.Strings(v.missingByID)
	return v
}

// waitDispatched waits until each queue's max offset covers the highest acknowledged queue offset
// in it (the consume queue entries of the latest sends are written asynchronously). A queue that
// never gets there is left to the checks, which then report what is missing.
func waitDispatched(t testing.TB, rc *rawClient, topic string, acks []*ack) {
	t.Helper()
	want := map[int]int64{}
	for _, a := range acks {
		want[a.queueID] = max(want[a.queueID], a.queueOffset+1)
	}
	deadline := time.Now().Add(dispatchTimeout)
	ticker := time.NewTicker(20 * time.Millisecond)
	defer ticker.Stop()
	for {
		behind := ""
		for q, n := range want {
			m, err := rc.maxOffset(context.Background(), topic, q)
			if err != nil || m < n {
				behind = fmt.Sprintf("queue %d: max offset %d (err %v), highest acknowledged offset %d", q, m, err, n-1)
				break
			}
		}
		if behind == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Logf("consume queues still behind the acknowledgements after %v: %s", dispatchTimeout, behind)
			return
		}
		<-ticker.C
	}
}

// scanQueue pulls queue q from its min to its max offset and returns what is at each offset.
// Unpullable offsets and misplaced records go to v.holes, records unlike any send to v.strangers.
func scanQueue(t testing.TB, rc *rawClient, topic string, q int, v *verdict, sent map[string]sent) map[int64]stored {
	t.Helper()
	ctx := context.Background()
	minOff, err := rc.minOffset(ctx, topic, q)
	if err != nil {
		t.Fatalf("scan queue %d: %v", q, err)
	}
	maxOff, err := rc.maxOffset(ctx, topic, q)
	if err != nil {
		t.Fatalf("scan queue %d: %v", q, err)
	}
	v.queueRanges[q] = [2]int64{minOff, maxOff}
	out := make(map[int64]stored, maxOff-minOff)
	for off := minOff; off < maxOff; {
		res, err := rc.pull(ctx, verifyGroup, topic, q, off, 32)
		if err != nil {
			t.Fatalf("scan queue %d at %d: %v", q, off, err)
		}
		if res.code != protocol.Success || len(res.records) == 0 {
			v.holes = append(v.holes, fmt.Sprintf("queue %d offset %d (min %d, max %d): PULL answers code %d %q, nextBeginOffset %d",
				q, off, minOff, maxOff, res.code, res.remark, res.nextBeginOffset))
			if res.nextBeginOffset > off && res.nextBeginOffset <= maxOff {
				off = res.nextBeginOffset
			} else {
				off++
			}
			continue
		}
		start := off
		for _, r := range res.records {
			if r.Topic != topic || int(r.QueueID) != q {
				v.holes = append(v.holes, fmt.Sprintf("queue %d offset %d: PULL answers a record of %s queue %d offset %d (commit log offset %d)",
					q, off, r.Topic, r.QueueID, r.QueueOffset, r.PhysicalOffset))
				continue
			}
			if r.QueueOffset != off {
				v.holes = append(v.holes, fmt.Sprintf("queue %d offset %d: PULL answers the record of offset %d (commit log offset %d)",
					q, off, r.QueueOffset, r.PhysicalOffset))
				if r.QueueOffset < off {
					continue
				}
				off = r.QueueOffset
			}
			out[off] = summarize(r)
			if why := unlikeSent(out[off], sent); why != "" {
				line := fmt.Sprintf("queue %d offset %d: %s; the record: %s", q, off, why, describe(r))
				if out[off].propsBad != "" {
					v.torn = append(v.torn, line)
				} else {
					v.strangers = append(v.strangers, line)
				}
			}
			off++
		}
		if off == start {
			off++
		}
	}
	return out
}

// unlikeSent says how a stored record differs from the send of its key, "" if it does not.
func unlikeSent(s stored, sent map[string]sent) string {
	want, ok := sent[s.key]
	switch {
	case s.propsBad != "":
		return fmt.Sprintf("key %q: %s", s.key, s.propsBad)
	case !ok:
		return fmt.Sprintf("key %q was never sent", s.key)
	case want.bodyCRC != s.bodyCRC || want.bodyLen != s.bodyLen:
		return fmt.Sprintf("key %q with a %d-byte body (crc %08x) but %d bytes (crc %08x) were sent",
			s.key, s.bodyLen, s.bodyCRC, want.bodyLen, want.bodyCRC)
	case s.tags != crashTag || s.uniqID == "":
		return fmt.Sprintf("key %q with TAGS %q and UNIQ_KEY %q", s.key, s.tags, s.uniqID)
	case s.padLen != want.padLen:
		return fmt.Sprintf("key %q with a %d-byte %s property but %d bytes were sent", s.key, s.padLen, padProp, want.padLen)
	}
	return ""
}

// describe prints a record for a failure report. Bodies of the crash runs begin with their key.
func describe(r *message.MessageExt) string {
	body := r.Body
	if len(body) > 48 {
		body = body[:48]
	}
	props := r.Properties
	if len(props) > 300 {
		props = props[:150] + "..." + props[len(props)-150:]
	}
	out := fmt.Sprintf("commit log offset %d, size %d, topic %q, queue %d, queue offset %d, sysFlag %d, born %d, stored %d, "+
		"body %d bytes starting %q (crc ok), properties %d bytes %q",
		r.PhysicalOffset, r.StoreSize, r.Topic, r.QueueID, r.QueueOffset, r.SysFlag, r.BornTimestamp, r.StoreTimestamp,
		len(r.Body), body, len(r.Properties), props)
	if i := strings.IndexByte(r.Properties, 0); i >= 0 {
		at := r.PhysicalOffset + int64(r.StoreSize) - int64(len(r.Properties)) + int64(i)
		out += fmt.Sprintf("; zeros from commit log offset %d, %d bytes before a 4 KiB page boundary", at, (4096-at%4096)%4096)
	}
	return out
}

func summarize(r *message.MessageExt) stored {
	s := stored{key: r.Props[message.PropertyKeys], uniqID: r.UniqKey(), tags: r.Tags(), phyOffset: r.PhysicalOffset,
		bodyCRC: crc32.ChecksumIEEE(r.Body), bodyLen: len(r.Body), padLen: -1}
	if pad, ok := r.Props[padProp]; ok {
		s.padLen = len(pad)
	}
	switch props := r.Properties; {
	case strings.IndexByte(props, 0) >= 0:
		s.propsBad = fmt.Sprintf("NUL bytes in the properties from byte %d", strings.IndexByte(props, 0))
	case props != "" && props[len(props)-1] != message.PropertySeparator:
		s.propsBad = "the properties do not end with a separator"
	}
	return s
}

// matches says how a looked-up record differs from the acknowledged message, "" when it is it.
func matches(r *message.MessageExt, topic string, a *ack) string {
	s := summarize(r)
	switch {
	case r.Topic != topic:
		return "topic " + r.Topic
	case !slices.Contains(r.Keys(), a.key):
		return fmt.Sprintf("keys %q", r.Props[message.PropertyKeys])
	case s.uniqID != a.uniqID:
		return "UNIQ_KEY " + s.uniqID
	case s.phyOffset != a.phyOffset:
		return fmt.Sprintf("commit log offset %d", s.phyOffset)
	case int(r.QueueID) != a.queueID || r.QueueOffset != a.queueOffset:
		return fmt.Sprintf("queue %d offset %d", r.QueueID, r.QueueOffset)
	case s.bodyCRC != a.bodyCRC || s.bodyLen != a.bodyLen:
		return "a different body"
	}
	return ""
}

// checkByKey looks a up with QUERY_MESSAGE by its key; "" when one answered record is it.
func checkByKey(rc *rawClient, topic string, a *ack) string {
	code, body, err := rc.queryByKey(context.Background(), topic, a.key, false)
	if err != nil {
		return "QUERY_MESSAGE: " + err.Error()
	}
	if code != protocol.Success {
		return fmt.Sprintf("QUERY_MESSAGE by key answers code %d", code)
	}
	recs, err := message.DecodeAll(body, true)
	if err != nil {
		return "QUERY_MESSAGE body: " + err.Error()
	}
	var diffs []string
	for _, r := range recs {
		d := matches(r, topic, a)
		if d == "" {
			return ""
		}
		diffs = append(diffs, d)
	}
	return fmt.Sprintf("QUERY_MESSAGE by key answers %d records, none of them it: %s", len(recs), strings.Join(diffs, "; "))
}

// checkByID reads a with VIEW_MESSAGE_BY_ID at its offset msgId's commit log offset.
func checkByID(rc *rawClient, topic string, a *ack) string {
	code, body, err := rc.viewByOffset(context.Background(), a.phyOffset)
	if err != nil {
		return "VIEW_MESSAGE_BY_ID: " + err.Error()
	}
	if code != protocol.Success {
		return fmt.Sprintf("VIEW_MESSAGE_BY_ID answers code %d", code)
	}
	recs, err := message.DecodeAll(body, true)
	if err != nil || len(recs) != 1 {
		return fmt.Sprintf("VIEW_MESSAGE_BY_ID body of %d bytes: %d records, %v", len(body), len(recs), err)
	}
	if d := matches(recs[0], topic, a); d != "" {
		return "VIEW_MESSAGE_BY_ID answers another record: " + d
	}
	return ""
}

// report logs up to n lines of each list of problems.
func (v *verdict) report(t testing.TB, n int) {
	t.Helper()
	for _, l := range []struct {
		name  string
		lines []string
	}{
		{"not readable at its queue offset", v.missingByPull},
		{"not found by key", v.missingByKey},
		{"not found by offset msgId", v.missingByID},
		{"queue holes", v.holes},
		{"records that were never sent", v.strangers},
		{"torn records (properties cut short) accepted by recovery", v.torn},
	} {
		if len(l.lines) == 0 {
			continue
		}
		shown := l.lines
		if len(shown) > n {
			shown = shown[:n]
		}
		t.Logf("%d %s, e.g.:\n  %s", len(l.lines), l.name, strings.Join(shown, "\n  "))
	}
}
