package pop

import (
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/broker/configfile"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// Orderly POP (Java ConsumerOrderInfoManager): a queue's messages are handed to one consumer
// at a time. A pop of a queue records which offsets it handed out; the queue is blocked until
// they are all acknowledged or their invisible time passed; a pop of the same messages again
// counts how often each was handed out (the order counts, which the client takes as
// reconsumeTimes). An ack moves the group's offset to the first offset not yet acknowledged.
// The table is written to consumerOrderInfo.json, Java's file and format.

// orderInfo is one queue's last orderly pop (Java OrderInfo; its JSON names).
type orderInfo struct {
	PopTime       int64 `json:"popTime"`
	InvisibleTime int64 `json:"i"`
	// Offsets are [first, first+d1, ...] as [first, d1, d2, ...].
	Offsets          []int64         `json:"o"`
	NextVisibleTimes map[int64]int64 `json:"ot,omitempty"`
	ConsumedCounts   map[int64]int   `json:"oc,omitempty"`
	LastConsume      int64           `json:"l"`
	CommitBits       int64           `json:"cm"`
	AttemptID        string          `json:"a,omitempty"`
}

func (o *orderInfo) offset(i int) int64 {
	if i == 0 {
		return o.Offsets[0]
	}
	return o.Offsets[0] + o.Offsets[i]
}

func (o *orderInfo) acked(i int) bool { return o.CommitBits&(1<<i) != 0 }

// visibleAt is when message i may be popped again.
func (o *orderInfo) visibleAt(i int) int64 {
	if t, ok := o.NextVisibleTimes[o.offset(i)]; ok {
		return t
	}
	return o.PopTime + o.InvisibleTime
}

// blocks is Java's needBlock: a message not acknowledged and still invisible, unless the pop
// is a retry of the same attempt.
func (o *orderInfo) blocks(attemptID string, invisibleTime, now int64) bool {
	if len(o.Offsets) == 0 || (o.AttemptID != "" && o.AttemptID == attemptID) {
		return false
	}
	if o.InvisibleTime <= 0 {
		o.InvisibleTime = invisibleTime
	}
	for i := range o.Offsets {
		if !o.acked(i) && now < o.visibleAt(i) {
			return true
		}
	}
	return false
}

// handedOut reports whether the pop handed out offset.
func (o *orderInfo) handedOut(offset int64) bool {
	for i := range o.Offsets {
		if o.offset(i) == offset {
			return true
		}
	}
	return false
}

// next is the offset after the acknowledged prefix.
func (o *orderInfo) next() int64 {
	for i := range o.Offsets {
		if !o.acked(i) {
			return o.offset(i)
		}
	}
	return o.offset(len(o.Offsets)-1) + 1
}

// orderInfoFile is consumerOrderInfo.json: "topic@group" → queue id → info.
type orderInfoFile struct {
	Table map[string]map[int32]*orderInfo `json:"table"`
}

// orderInfos is the table of orderly pops.
type orderInfos struct {
	lg   *zap.Logger
	file *configfile.Persister
	mu   sync.Mutex
	tab  map[string]map[int32]*orderInfo
	seq  uint64
	now  func() time.Time
}

// orderInfoPath is where the table is written under a store root.
func orderInfoPath(root string) string {
	return filepath.Join(root, "config", "consumerOrderInfo.json")
}

func newOrderInfos(root string, lg *zap.Logger) (*orderInfos, error) {
	o := &orderInfos{lg: lg, tab: map[string]map[int32]*orderInfo{}, now: time.Now}
	if root == "" {
		return o, nil
	}
	o.file = configfile.NewPersister(orderInfoPath(root))
	var f orderInfoFile
	_, err := o.file.Load(func(data []byte) error { return body.Unmarshal(data, &f) }, lg)
	if err != nil {
		return nil, fmt.Errorf("pop: load consumer order info: %w", err)
	}
	for k, qs := range f.Table {
		if qs != nil {
			o.tab[k] = qs
		}
	}
	return o, nil
}

func orderKey(topic, group string) string { return topic + "@" + group }

func (o *orderInfos) get(topic, group string, q int32) *orderInfo {
	return o.tab[orderKey(topic, group)][q]
}

// blocked reports whether a queue's last orderly pop still holds it.
func (o *orderInfos) blocked(attemptID, topic, group string, q int32, invisibleTime, now int64) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	info := o.get(topic, group, q)
	return info != nil && info.blocks(attemptID, invisibleTime, now)
}

// update records an orderly pop of offsets and appends its order counts to dst.
func (o *orderInfos) update(attemptID, topic, group string, q int32, popTime, invisibleTime int64, offsets []int64, dst []byte) []byte {
	o.mu.Lock()
	defer o.mu.Unlock()
	info := &orderInfo{PopTime: popTime, InvisibleTime: invisibleTime, LastConsume: o.now().UnixMilli(),
		AttemptID: attemptID, Offsets: compactOffsets(offsets)}
	prev := o.get(topic, group, q)
	info.ConsumedCounts = mergeCounts(info, prev)
	k := orderKey(topic, group)
	if o.tab[k] == nil {
		o.tab[k] = map[int32]*orderInfo{}
	}
	o.tab[k][q] = info
	o.seq++
	return appendOrderCounts(dst, topic, q, info)
}

func compactOffsets(offsets []int64) []int64 {
	out := slices.Clone(offsets)
	for i := 1; i < len(out); i++ {
		out[i] = offsets[i] - offsets[0]
	}
	return out
}

// mergeCounts is Java's mergeOffsetConsumedCount: a message popped again counts once more;
// the same attempt keeps the previous counts.
func mergeCounts(info, prev *orderInfo) map[int64]int {
	if prev == nil {
		return nil
	}
	if prev.AttemptID != "" && prev.AttemptID == info.AttemptID {
		return prev.ConsumedCounts
	}
	popped := make(map[int64]bool, len(info.Offsets))
	for i := range info.Offsets {
		popped[info.offset(i)] = true
	}
	out := map[int64]int{}
	for i := range prev.Offsets {
		if off := prev.offset(i); popped[off] {
			out[off] = prev.ConsumedCounts[off] + 1
		}
	}
	return out
}

// appendOrderCounts writes a pop's orderCountInfo: each message's count, then the queue's
// smallest (0 when a message was never popped before).
func appendOrderCounts(dst []byte, topic string, q int32, info *orderInfo) []byte {
	mark := protocol.RetryMark(topic)
	least := -1
	for off, n := range info.ConsumedCounts {
		dst = protocol.AppendOffsetOrderCount(dst, mark, q, off, n)
		if least < 0 || n < least {
			least = n
		}
	}
	if least < 0 || len(info.ConsumedCounts) != len(info.Offsets) {
		least = 0
	}
	return protocol.AppendQueueOrderCount(dst, mark, q, least)
}

// commitAndNext marks an orderly message acknowledged. It returns the group's next offset, -1
// for an offset the pop did not hand out, -2 when the ack is of an older pop (Java's codes).
func (o *orderInfos) commitAndNext(topic, group string, q int32, offset, popTime int64) int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	info := o.get(topic, group, q)
	if info == nil {
		return offset + 1
	}
	if len(info.Offsets) == 0 {
		return -1
	}
	if popTime != info.PopTime {
		return -2
	}
	for i := range info.Offsets {
		if info.offset(i) == offset {
			info.CommitBits |= 1 << i
			info.LastConsume = o.now().UnixMilli()
			o.seq++
			return info.next()
		}
	}
	return -1
}

// changeVisibleTime sets when an orderly message becomes visible again.
func (o *orderInfos) changeVisibleTime(topic, group string, q int32, offset, popTime, visibleAt int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	info := o.get(topic, group, q)
	if info == nil || info.PopTime != popTime || !info.handedOut(offset) {
		return // only what the pop handed out: the table and its file stay bounded by the pops
	}
	if info.NextVisibleTimes == nil {
		info.NextVisibleTimes = map[int64]int64{}
	}
	info.NextVisibleTimes[offset] = visibleAt
	o.seq++
}

// persist writes the table when it changed, dropping queues not popped for a day (Java's
// autoClean).
func (o *orderInfos) persist() error {
	if o.file == nil {
		return nil
	}
	o.mu.Lock()
	o.cleanLocked()
	seq := o.seq
	data, err := body.MarshalIndent(orderInfoFile{Table: o.tab})
	o.mu.Unlock()
	if err != nil {
		return fmt.Errorf("pop: encode consumer order info: %w", err)
	}
	return o.file.Write(data, seq)
}

func (o *orderInfos) cleanLocked() {
	old := o.now().Add(-24 * time.Hour).UnixMilli()
	for k, qs := range o.tab {
		for q, info := range qs {
			if info.LastConsume < old {
				delete(qs, q)
				o.seq++
			}
		}
		if len(qs) == 0 {
			delete(o.tab, k)
		}
	}
}

// flushLoop persists the table every interval.
func (o *orderInfos) flushLoop(every time.Duration) func(stop <-chan struct{}) {
	return func(stop <-chan struct{}) {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if err := o.persist(); err != nil {
					o.lg.Error("persist consumer order info", zap.Error(err))
				}
			}
		}
	}
}
