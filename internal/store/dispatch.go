package store

import (
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/lifecycle"
	"github.com/rocketgo/rocketgo/internal/store/commitlog"
	"github.com/rocketgo/rocketgo/internal/store/consumequeue"
	"github.com/rocketgo/rocketgo/internal/store/mmapfile"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// DispatchInfo describes one record as the dispatcher saw it.
type DispatchInfo struct {
	Topic           string
	QueueID         int32
	QueueOffset     int64
	CommitLogOffset int64
	Size            int32
	TagsCode        int64
	StoreTimestamp  int64
	BornTimestamp   int64
	SysFlag         int32
	// Properties are the record's encoded properties: a slice of the mapped
	// CommitLog, valid only during the call that receives it.
	Properties []byte
}

// Keys is the KEYS property (allocates).
func (d *DispatchInfo) Keys() string { return d.property(message.PropertyKeys) }

// UniqKey is the UNIQ_KEY property (allocates).
func (d *DispatchInfo) UniqKey() string { return d.property(message.PropertyUniqClientMessageID) }

func (d *DispatchInfo) property(key string) string {
	v, _ := message.LookupProperty(d.Properties, key)
	return string(v)
}

// dispatchRetry is how often the dispatcher looks for new data without a
// signal, and retries after a failed ConsumeQueue write.
const dispatchRetry = 50 * time.Millisecond

// dispatcher ("reput") follows the CommitLog, decodes each record once and
// feeds the ConsumeQueues, the index and OnDispatch.
type dispatcher struct {
	s      *Store
	offset atomic.Int64 // next CommitLog offset to dispatch
	lastTS atomic.Int64 // store time of the last dispatched record
	topics map[string]string
	failed bool // a failure was logged; cleared on progress
	live   bool // OnDispatch is called (not during recovery)

	// Recovery only (before start):
	strict    map[string]bool              // topics whose queues must not skip offsets (queueGapError)
	only      map[commitlog.QueueKey]bool  // rebuild: dispatch only to these queues
	onSegment func(f *mmapfile.MappedFile) // progress: called for every segment entered

	g lifecycle.Group // the dispatch goroutine
}

func newDispatcher(s *Store) *dispatcher {
	return &dispatcher{s: s, topics: make(map[string]string)}
}

func (d *dispatcher) start() {
	d.live = true
	d.g.Go(d.run)
}

func (d *dispatcher) run(stop <-chan struct{}) {
	t := time.NewTicker(dispatchRetry)
	defer t.Stop()
	for {
		d.pass(d.s.cl.ReadableOffset())
		select {
		case <-stop:
			return
		case <-d.s.cl.Readable():
		case <-t.C:
		}
	}
}

// stop ends the goroutine, if it was started, and makes a last pass up to the
// end of the log. The store calls it once, from Close.
func (d *dispatcher) stop() {
	d.g.Stop()
	d.pass(d.s.cl.MaxOffset())
}

// pass dispatches up to limit and logs the first failure of a run of them.
// A failed record is not skipped: the next pass starts with it. A full disk
// (a ConsumeQueue file or block could not be allocated) also asks the clean
// service to measure the disk and free space now, as a failed CommitLog
// segment creation does.
func (d *dispatcher) pass(limit int64) {
	err := d.dispatchUpTo(limit)
	full := errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
	if full {
		d.s.clean.kick()
	}
	if err != nil && !d.failed {
		msg := "dispatch failed; retrying"
		if full {
			msg = "no disk space for a consume queue entry; dispatch resumes once space is freed"
		}
		d.s.lg.Error(msg, zap.Int64("offset", d.offset.Load()), zap.Error(err))
	}
	d.failed = err != nil
}

// dispatchUpTo dispatches every record from the current offset below limit.
func (d *dispatcher) dispatchUpTo(limit int64) error {
	var last *mmapfile.MappedFile
	for off := d.offset.Load(); off < limit; off = d.offset.Load() {
		f := d.s.cl.AcquireAt(off)
		if f == nil {
			if min := d.s.cl.MinOffset(); off < min {
				d.offset.Store(min) // deleted under us (cleanup): skip ahead
				continue
			}
			return fmt.Errorf("store: dispatch: no segment holds offset %d", off)
		}
		if d.onSegment != nil && f != last {
			d.onSegment(f)
		}
		last = f
		err := mmapfile.CatchFault(func() error { return d.segment(f, limit) })
		f.Release()
		if err != nil {
			return err
		}
		if d.offset.Load() == off {
			return nil // nothing readable yet in this segment
		}
	}
	return nil
}

// segment dispatches the records of f from the current offset below limit.
func (d *dispatcher) segment(f *mmapfile.MappedFile, limit int64) error {
	for {
		off := d.offset.Load()
		pos, avail := off-f.Start(), min(f.Wrote(), limit-f.Start())
		if pos+message.BlankMinLen > avail {
			return nil
		}
		size, magic, _ := message.Peek(f.Bytes(pos, message.BlankMinLen))
		if magic == message.MagicBlank {
			d.offset.Store(f.End())
			return nil
		}
		if int64(size) > avail-pos || size <= 0 {
			return nil // not fully written (cannot happen below the readable offset)
		}
		v, err := message.Parse(f.Bytes(pos, int64(size)))
		if err != nil {
			return fmt.Errorf("store: dispatch: record at %d: %w", off, err)
		}
		if err := d.dispatch(v, off); err != nil {
			return err
		}
		d.offset.Store(off + int64(size))
	}
}

// dispatch feeds one record to the ConsumeQueue, the index and OnDispatch.
func (d *dispatcher) dispatch(v message.View, off int64) error {
	props := v.Properties()
	info := DispatchInfo{
		Topic: d.intern(v.Topic()), QueueID: v.QueueID(), QueueOffset: v.QueueOffset(),
		CommitLogOffset: off, Size: v.TotalSize(), StoreTimestamp: v.StoreTimestamp(),
		BornTimestamp: v.BornTimestamp(), SysFlag: v.SysFlag(), Properties: props,
	}
	tags, _ := message.LookupProperty(props, message.PropertyTags)
	info.TagsCode = message.TagsCode(tags)
	if info.Topic == message.ScheduleTopic {
		if t, ok := d.deliverTime(props, info.StoreTimestamp); ok {
			info.TagsCode = t
		}
	}
	tran := message.TransactionType(info.SysFlag)
	inQueue := tran == message.SysFlagTransactionNot || tran == message.SysFlagTransactionCommit
	if !validTopic(info.Topic) {
		d.s.lg.Warn("not dispatching a record with an invalid topic", zap.Int64("offset", off), zap.ByteString("topic", v.Topic()))
		return nil
	}
	if d.only != nil && !d.only[commitlog.QueueKey{Topic: info.Topic, QueueID: info.QueueID}] {
		return nil
	}
	if d.s.deleted.hides(info.Topic, off) {
		return nil // its topic was deleted after it was written
	}
	if inQueue && d.strict[info.Topic] {
		if err := d.checkContinuous(info); err != nil {
			return err
		}
	}
	if inQueue {
		e := consumequeue.Entry{Offset: off, Size: info.Size, TagsCode: info.TagsCode}
		if err := d.s.cqs.put(info.Topic, info.QueueID, info.QueueOffset, e); err != nil {
			return err
		}
	}
	if d.s.idx != nil {
		if err := d.s.idx.Index(info); err != nil {
			d.s.lg.Warn("index failed", zap.Int64("offset", off), zap.Error(err))
		}
	}
	if inQueue && d.live && d.s.opts.OnDispatch != nil {
		d.s.opts.OnDispatch(info)
	}
	d.lastTS.Store(info.StoreTimestamp)
	return nil
}

// queueGapError reports a record whose queue offset lies past the end of its
// ConsumeQueue during recovery: entries before it are missing.
type queueGapError struct {
	key       commitlog.QueueKey
	queueEnd  int64
	recordOff int64
}

func (e *queueGapError) Error() string {
	return fmt.Sprintf("store: consume queue %s/%d ends at %d but the record at commit log offset %d has a later queue offset",
		e.key.Topic, e.key.QueueID, e.queueEnd, e.recordOff)
}

// checkContinuous refuses a record that would leave a gap in its queue.
func (d *dispatcher) checkContinuous(info DispatchInfo) error {
	q := d.s.cqs.get(info.Topic, info.QueueID)
	end := int64(0)
	if q != nil {
		end = q.MaxOffset()
	}
	if info.QueueOffset <= end {
		return nil
	}
	return &queueGapError{key: commitlog.QueueKey{Topic: info.Topic, QueueID: info.QueueID}, queueEnd: end, recordOff: info.CommitLogOffset}
}

// deliverTime is the tagsCode of a SCHEDULE_TOPIC_XXXX record: store time plus
// its DELAY level's delay (the level clamped to the table).
func (d *dispatcher) deliverTime(props []byte, storeTS int64) (int64, bool) {
	v, ok := message.LookupProperty(props, message.PropertyDelayTimeLevel)
	if !ok {
		return 0, false
	}
	level, err := strconv.Atoi(string(v))
	levels := d.s.opts.DelayLevels
	if err != nil || level <= 0 || len(levels) == 0 {
		return 0, false
	}
	level = min(level, len(levels))
	return storeTS + levels[level-1].Milliseconds(), true
}

// intern returns a shared string for a topic, allocating once per topic.
func (d *dispatcher) intern(b []byte) string {
	if s, ok := d.topics[string(b)]; ok {
		return s
	}
	s := string(b)
	d.topics[s] = s
	return s
}

// behind is how many bytes of the log are not dispatched yet.
func (d *dispatcher) behind() int64 { return max(d.s.cl.MaxOffset()-d.offset.Load(), 0) }
