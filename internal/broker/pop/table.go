package pop

import (
	"slices"
	"sync"
)

// key names a checkpoint as an ack names it: the messages' topic (a retry topic for messages
// popped from one), group and queue, the checkpoint's first offset and its pop time.
type key struct {
	topic   string
	group   string
	queueID int32
	start   int64
	popTime int64
}

// checkpoint is one outstanding pop of one queue: messages handed out and not yet all settled
// (acknowledged, or revived to the retry topic or DLQ).
type checkpoint struct {
	key
	invisibleTime int64
	reviveQid     int32
	reviveOffset  int64   // the checkpoint record's offset in its revive queue
	offsets       []int64 // the popped messages' queue offsets
	settled       uint32  // bit i: offsets[i] acknowledged or revived
	reviving      bool    // the revive service is working on it
}

func (c *checkpoint) reviveTime() int64 { return c.popTime + c.invisibleTime }

// index is the position of offset among the checkpoint's messages, or -1.
func (c *checkpoint) index(offset int64) int {
	for i, o := range c.offsets {
		if o == offset {
			return i
		}
	}
	return -1
}

func (c *checkpoint) done() bool { return c.settled == uint32(1<<len(c.offsets)-1) }

// unsettled returns the offsets not yet settled.
func (c *checkpoint) unsettled() []int64 {
	var out []int64
	for i, o := range c.offsets {
		if c.settled&(1<<i) == 0 {
			out = append(out, o)
		}
	}
	return out
}

// table holds the outstanding checkpoints, and for each revive queue the floors of checkpoint
// records being written, so that the revive offset committed never passes a record that is not
// in the table yet.
type table struct {
	mu      sync.Mutex
	cks     map[key]*checkpoint
	pending []map[int64]int // per revive queue: floor → records in flight with it
}

func newTable(reviveQueues int) *table {
	t := &table{cks: map[key]*checkpoint{}, pending: make([]map[int64]int, reviveQueues)}
	for i := range t.pending {
		t.pending[i] = map[int64]int{}
	}
	return t
}

// begin notes a checkpoint record about to be written to revive queue q, whose queue offset is
// at least floor.
func (t *table) begin(q int32, floor int64) {
	t.mu.Lock()
	t.pending[q][floor]++
	t.mu.Unlock()
}

// end takes back a begin; c, when not nil, is the checkpoint that was written. A checkpoint
// whose key is taken (two in the same millisecond) is refused: the caller retries with the next
// pop time.
func (t *table) end(q int32, floor int64, c *checkpoint) (added bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if n := t.pending[q][floor]; n > 1 {
		t.pending[q][floor] = n - 1
	} else {
		delete(t.pending[q], floor)
	}
	if c == nil {
		return false
	}
	if _, taken := t.cks[c.key]; taken {
		return false
	}
	t.cks[c.key] = c
	return true
}

// has reports whether a checkpoint holds k.
func (t *table) has(k key) bool {
	t.mu.Lock()
	_, ok := t.cks[k]
	t.mu.Unlock()
	return ok
}

// pending is what a checkpoint still has to settle among some offsets: at most all of its
// messages, kept in an array so that a settle allocates nothing.
type pending struct {
	offsets   [maxCheckpointMessages]int64
	n         int
	reviveQid int32
}

func (p *pending) list() []int64 { return p.offsets[:p.n] }

// unsettledOf returns which of offsets the checkpoint k still has to settle, in their order,
// and the checkpoint's revive queue; none when there is no such checkpoint or all are settled.
func (t *table) unsettledOf(k key, offsets []int64, out *pending) {
	t.mu.Lock()
	defer t.mu.Unlock()
	out.n = 0
	c := t.cks[k]
	if c == nil {
		return
	}
	out.reviveQid = c.reviveQid
	for _, o := range offsets {
		if i := c.index(o); i >= 0 && c.settled&(1<<i) == 0 && !slices.Contains(out.list(), o) {
			out.offsets[out.n] = o
			out.n++
		}
	}
}

// settle marks offsets of checkpoint k settled and drops the checkpoint once all are; it reports
// how many it marked.
func (t *table) settle(k key, offsets []int64) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	c := t.cks[k]
	if c == nil {
		return 0
	}
	n := 0
	for _, o := range offsets {
		if i := c.index(o); i >= 0 && c.settled&(1<<i) == 0 {
			c.settled |= 1 << i
			n++
		}
	}
	if c.done() {
		delete(t.cks, k)
	}
	return n
}

// due takes the checkpoints whose revive time has come, marking them reviving.
func (t *table) due(now int64) []*checkpoint {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []*checkpoint
	for _, c := range t.cks {
		if !c.reviving && c.reviveTime() <= now {
			c.reviving = true
			out = append(out, c)
		}
	}
	return out
}

// unmark gives a checkpoint back after a revive that did not complete.
func (t *table) unmark(c *checkpoint) {
	t.mu.Lock()
	c.reviving = false
	t.mu.Unlock()
}

// unsettledOfCk returns the offsets c has not settled, under the table's lock.
func (t *table) unsettledOfCk(c *checkpoint) []int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return c.unsettled()
}

// safeOffsets returns, for each revive queue, the offset below which every record is settled:
// the smallest of its outstanding checkpoints' record offsets and its in-flight floors, or
// tail(q) when it has neither.
func (t *table) safeOffsets(tail func(q int32) int64) []int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]int64, len(t.pending))
	for q := range out {
		out[q] = -1
		for floor := range t.pending[q] {
			out[q] = lower(out[q], floor)
		}
	}
	for _, c := range t.cks {
		if int(c.reviveQid) < len(out) {
			out[c.reviveQid] = lower(out[c.reviveQid], c.reviveOffset)
		}
	}
	for q := range out {
		if out[q] < 0 {
			out[q] = tail(int32(q))
		}
	}
	return out
}

// lower is the smaller of two offsets where -1 is none.
func lower(cur, v int64) int64 {
	if cur < 0 || v < cur {
		return v
	}
	return cur
}

// size is the number of outstanding checkpoints.
func (t *table) size() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.cks)
}

// inflight counts, for each queue of a group's topic, its unsettled messages (Java's
// PopInflightMessageCounter); a queue without any is missing.
func (t *table) inflight(topic, group string) map[int32]int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out map[int32]int64
	for _, c := range t.cks {
		if n := len(c.offsets) - popcount(c.settled); n > 0 && c.topic == topic && c.group == group {
			if out == nil {
				out = map[int32]int64{}
			}
			out[c.queueID] += int64(n)
		}
	}
	return out
}

func popcount(x uint32) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}
