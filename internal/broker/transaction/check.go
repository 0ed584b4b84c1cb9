package transaction

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
	"github.com/rocketgo/rocketgo/pkg/protocol/names"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// maxQueueProcessTime bounds one pass over one half queue (Java MAX_QUEUE_PROCESS_TIME).
const maxQueueProcessTime = 60 * time.Second

// opBatch is how many op messages are read at a time.
const opBatch = 32

// Check makes one pass over every half queue (Java TransactionalMessageServiceImpl.check). It is
// what the loop runs every CheckInterval; tests call it directly.
func (s *Service) Check() {
	s.checkMu.Lock()
	defer s.checkMu.Unlock()
	queues := int32(1)
	if cfg, ok := s.topics.Get(systopic.TransHalf); ok {
		queues = int32(cfg.ReadQueueNums)
	}
	for q := int32(0); q < queues && !s.stopping(); q++ {
		s.checkQueue(q)
	}
}

// queuePass is one pass over one half queue.
type queuePass struct {
	s     *Service
	start int64 // ms; half messages stored since were put back during this pass or are too new
	ops   *opReader
}

// checkQueue walks one half queue from the check group's offset and moves the offset past every half
// message it settled: ended by an op message, discarded, or put back and checked.
func (s *Service) checkQueue(q int32) {
	begin := s.opts.Now()
	halfOff := s.consumeOffset(systopic.TransHalf, q)
	opOff := s.consumeOffset(systopic.TransOpHalf, q)
	end := s.st.MaxOffsetInQueue(systopic.TransHalf, q) // copies put back during the pass lie beyond it
	if halfOff >= end {
		return // no half message to look at: no store read, so an idle broker shows no get traffic
	}
	p := &queuePass{s: s, start: begin.UnixMilli(), ops: newOpReader(s, q, opOff, halfOff)}
	p.ops.fill()
	next := halfOff
	for next < end && !s.stopping() && s.opts.Now().Sub(begin) < maxQueueProcessTime {
		if p.ops.take(next) {
			next++
			continue
		}
		half, moved, ok := s.halfAt(q, next)
		if !ok {
			if moved > next {
				next = moved // the queue's start moved past next: expired half messages
				continue
			}
			break
		}
		if !p.handle(half) {
			break
		}
		next++
	}
	if next != halfOff {
		s.offsets.Commit(systopic.TransCheckGroup, systopic.TransHalf, q, next)
	}
	if newOp := p.ops.newOffset(); newOp != opOff {
		s.offsets.Commit(systopic.TransCheckGroup, systopic.TransOpHalf, q, newOp)
	}
}

// handle decides about one half message no op message read so far settles; false stops the pass
// at it (it is too young, or could not be put back), to be looked at again next time.
func (p *queuePass) handle(half *message.MessageExt) bool {
	s := p.s
	times, discard := nextCheckTimes(half.Props, s.opts.CheckMax)
	if discard || s.tooOld(half) {
		s.lg.Warn("discarding a half message: checked too many times or older than fileReservedTime",
			zap.String("topic", half.Props[message.PropertyRealTopic]), zap.String("msgId", half.UniqKey()),
			zap.String("producerGroup", half.Props[message.PropertyProducerGroup]),
			zap.Int64("halfOffset", half.QueueOffset), zap.Int64("commitLogOffset", half.PhysicalOffset),
			zap.Int("checkTimes", times-1), zap.Time("born", time.UnixMilli(half.BornTimestamp)))
		if m := s.opts.Metrics; m != nil {
			m.HalfDiscarded(half.Props[message.PropertyRealTopic])
		}
		return true
	}
	if half.StoreTimestamp >= p.start {
		return false // stored after the pass began
	}
	age := s.nowMillis() - half.BornTimestamp
	immunity := s.opts.Timeout.Milliseconds()
	if v, ok := half.Props[message.PropertyCheckImmunityTimeSeconds]; ok {
		immunity = immunityMillis(v, immunity)
		if age >= 0 && age < immunity {
			return p.keepImmune(half)
		}
	} else if age >= 0 && age < immunity {
		return false // younger than the transaction timeout; so is everything after it
	}
	// Settled by an op message not read yet?
	for !p.ops.exhausted && !p.ops.settled(half.QueueOffset) {
		p.ops.fill()
	}
	if p.ops.take(half.QueueOffset) {
		return true
	}
	return s.checkBack(half, times)
}

// keepImmune handles a half message whose producer asked for a longer CHECK_IMMUNITY_TIME: unless
// an op message settles it or the half message it was copied from, it is put back again, carrying
// that original queue offset in TRAN_PREPARED_QUEUE_OFFSET (Java checkPrepareQueueOffset).
func (p *queuePass) keepImmune(half *message.MessageExt) bool {
	orig := half.QueueOffset
	if v, err := strconv.ParseInt(half.Props[message.PropertyTranPreparedQueueOffset], 10, 64); err == nil && v >= 0 {
		orig = v
	}
	for !p.ops.exhausted && !p.ops.seen[orig] && !p.ops.settled(half.QueueOffset) {
		p.ops.fill()
	}
	if p.ops.take(half.QueueOffset) || p.ops.seen[orig] {
		p.ops.take(orig)
		return true
	}
	props := copyProps(half.Props, message.PropertyTranPreparedQueueOffset, strconv.FormatInt(orig, 10))
	_, ok := p.s.put(renewed(half, props), "immune half message")
	return ok
}

// checkBack puts a copy of the half message back with TRANSACTION_CHECK_TIMES=times and asks its
// producer group to end the copy (Java putBackHalfMsgQueue, resolveHalfMsg). False when the copy
// could not be stored.
func (s *Service) checkBack(half *message.MessageExt, times int) bool {
	props := copyProps(half.Props, message.PropertyTransactionCheckTimes, strconv.Itoa(times))
	m := renewed(half, props)
	res, ok := s.put(m, "half message put back for a check")
	if !ok {
		return false
	}
	s.askProducer(m, props, &res)
	return true
}

// askProducer sends CHECK_TRANSACTION_STATE about the copy of a half message just stored at res to
// one live connection of its producer group, oneway (Java sendCheckMessage).
func (s *Service) askProducer(m *store.Message, props map[string]string, res *store.PutResult) {
	group := props[message.PropertyProducerGroup]
	req, err := s.checkRequest(m, props, res)
	if err != nil {
		s.lg.Error("building a check request failed", zap.String("group", names.Quote(group)), zap.Error(err))
		return
	}
	chans := s.producers.Channels(group)
	if len(chans) > 0 {
		first := rand.IntN(len(chans))
		for i := range chans {
			ch := chans[(first+i)%len(chans)]
			if err := ch.Channel.InvokeOneway(req); err == nil {
				return
			}
		}
	}
	s.lg.Warn("no live connection of the producer group to check a transaction with", zap.String("group", names.Quote(group)),
		zap.String("msgId", names.Quote(props[message.PropertyUniqClientMessageID])), zap.Int64("halfOffset", res.QueueOffset))
}

// checkRequest builds CHECK_TRANSACTION_STATE: the copy's offsets in the header and the copy
// itself, with its real topic and queue, as the body.
func (s *Service) checkRequest(m *store.Message, props map[string]string, res *store.PutResult) (*protocol.Command, error) {
	realTopic, realQID, err := realTarget(props)
	if err != nil {
		return nil, err
	}
	rec := message.Message{
		Topic: realTopic, QueueID: realQID, Flag: m.Flag, QueueOffset: res.QueueOffset, PhysicalOffset: res.WroteOffset,
		SysFlag: m.SysFlag, BornTimestamp: m.BornTimestamp, BornHost: m.BornHost, StoreTimestamp: res.StoreTimestamp,
		StoreHost: res.StoreHost, ReconsumeTimes: m.ReconsumeTimes, BodyCRC: message.BodyCRC(m.Body), Body: m.Body,
		Properties: m.Properties,
	}
	b := make([]byte, rec.EncodedSize())
	if _, err := message.Encode(b, &rec); err != nil {
		return nil, err
	}
	uniq := props[message.PropertyUniqClientMessageID]
	return protocol.NewHeaderRequest(protocol.CheckTransactionState, &protocol.CheckTransactionStateRequestHeader{
		Topic:                protocol.Some(realTopic),
		TranStateTableOffset: res.QueueOffset,
		CommitLogOffset:      res.WroteOffset,
		MsgID:                protocol.Some(uniq),
		TransactionID:        protocol.Some(uniq),
		OffsetMsgID:          protocol.Some(res.MsgID()),
		BrokerName:           protocol.Some(s.opts.BrokerName),
	}, b), nil
}

// nextCheckTimes is the TRANSACTION_CHECK_TIMES of the next check of a half message, and whether
// it has been checked max times already (Java isNeedDiscard).
func nextCheckTimes(props map[string]string, max int) (int, bool) {
	v, ok := props[message.PropertyTransactionCheckTimes]
	if !ok {
		return 1, false
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		n = -1 // Java's getInt on garbage; it is then checked as if for the first time
	}
	if n >= max {
		return n + 1, true
	}
	return n + 1, false
}

// immunityMillis reads CHECK_IMMUNITY_TIME_IN_SECONDS; malformed or -1 means the timeout.
func immunityMillis(v string, timeout int64) int64 {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n == -1 {
		return timeout
	}
	return n * 1000
}

// tooOld reports a half message born before its CommitLog file may be deleted (Java isNeedSkip).
func (s *Service) tooOld(half *message.MessageExt) bool {
	return s.nowMillis()-half.BornTimestamp > s.opts.FileReservedTime.Milliseconds()
}

// consumeOffset is the check group's offset of a queue, or the queue's first offset when it has none.
func (s *Service) consumeOffset(topic string, q int32) int64 {
	if off, ok := s.offsets.Query(systopic.TransCheckGroup, topic, q); ok && off >= 0 {
		return off
	}
	return s.st.MinOffsetInQueue(topic, q)
}

// halfAt reads the half message at queue offset off. When there is none it returns ok=false and
// the offset reading should go on from: past off when the queue's start moved beyond it.
func (s *Service) halfAt(q int32, off int64) (half *message.MessageExt, moved int64, ok bool) {
	r := s.st.GetMessage(systopic.TransCheckGroup, systopic.TransHalf, q, off, 1, nil)
	if r == nil {
		return nil, off, false
	}
	defer r.Release()
	switch r.Status {
	case store.Found:
		m, err := message.Decode(r.Records[0], false)
		if err != nil {
			s.lg.Error("skipping an unreadable half message", zap.Int64("halfOffset", off), zap.Error(err))
			return nil, off + 1, false
		}
		m.QueueOffset = r.QueueOffsets[0]
		return m, off, true
	case store.OffsetTooSmall, store.OffsetFoundNull, store.MessageWasRemoving:
		return nil, r.NextBeginOffset, false
	default:
		return nil, off, false
	}
}

// opReader reads one op queue during a pass, from the check group's offset, opBatch messages at a time.
type opReader struct {
	s         *Service
	queueID   int32
	committed int64 // op offset at the start of the pass
	next      int64 // next op offset to read
	minHalf   int64 // half offset at the start of the pass
	exhausted bool  // nothing more to read now

	removed map[int64]int64 // half offset (≥ minHalf) → offset of its op message, not yet taken
	seen    map[int64]bool  // every half offset an op message read names
	done    []int64         // op offsets whose half message is behind the pass
}

func newOpReader(s *Service, q int32, opOff, halfOff int64) *opReader {
	return &opReader{s: s, queueID: q, committed: opOff, next: opOff, minHalf: halfOff,
		removed: map[int64]int64{}, seen: map[int64]bool{}}
}

// fill reads the next batch of op messages (Java fillOpRemoveMap).
func (r *opReader) fill() {
	if r.exhausted {
		return
	}
	res := r.s.st.GetMessage(systopic.TransCheckGroup, systopic.TransOpHalf, r.queueID, r.next, opBatch, nil)
	if res == nil {
		r.exhausted = true
		return
	}
	defer res.Release()
	switch res.Status {
	case store.Found:
		for i, rec := range res.Records {
			r.record(res.QueueOffsets[i], rec)
		}
		r.next = res.NextBeginOffset
	case store.OffsetTooSmall, store.OffsetFoundNull, store.MessageWasRemoving, store.NoMatchedMessage:
		if res.NextBeginOffset <= r.next {
			r.exhausted = true
			return
		}
		if res.Status == store.OffsetTooSmall && res.NextBeginOffset > r.committed {
			r.committed = res.NextBeginOffset // expired op messages: nothing below is left
		}
		r.next = res.NextBeginOffset
	default: // no (more) op messages
		r.exhausted = true
	}
}

// record files one op message.
func (r *opReader) record(opOff int64, rec []byte) {
	half, err := parseOp(rec)
	if err != nil {
		r.s.lg.Error("skipping a malformed op message", zap.Int32("queueId", r.queueID), zap.Int64("opOffset", opOff), zap.Error(err))
		r.done = append(r.done, opOff)
		return
	}
	r.seen[half] = true
	if half < r.minHalf {
		r.done = append(r.done, opOff)
	} else {
		r.removed[half] = opOff
	}
}

// parseOp reads the half offset an op message record names.
func parseOp(rec []byte) (int64, error) {
	v, err := message.Parse(rec)
	if err != nil {
		return 0, err
	}
	if tags, _ := message.LookupProperty(v.Properties(), message.PropertyTags); string(tags) != RemoveTag {
		return 0, fmt.Errorf("tag %q is not %q", tags, RemoveTag)
	}
	half, err := strconv.ParseInt(string(v.Body()), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("body %q is not a half offset", v.Body())
	}
	return half, nil
}

// settled reports whether an op message read so far names half offset off.
func (r *opReader) settled(off int64) bool {
	_, ok := r.removed[off]
	return ok
}

// take consumes the op message of half offset off, if one has been read.
func (r *opReader) take(off int64) bool {
	opOff, ok := r.removed[off]
	if ok {
		delete(r.removed, off)
		r.done = append(r.done, opOff)
	}
	return ok
}

// newOffset is the op offset to commit: past every op message from the old one on whose half
// message is behind the pass, up to the first that is not (Java calculateOpOffset).
func (r *opReader) newOffset() int64 {
	sort.Slice(r.done, func(i, j int) bool { return r.done[i] < r.done[j] })
	off := r.committed
	for _, d := range r.done {
		if d < off {
			continue
		}
		if d != off {
			break
		}
		off++
	}
	return off
}
