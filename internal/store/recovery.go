package store

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/store/commitlog"
	"github.com/rocketgo/rocketgo/internal/store/mmapfile"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// RecoveryStats describes what Open's recovery did.
type RecoveryStats struct {
	Clean           bool  // the last run closed cleanly (no abort file)
	ScanFrom        int64 // CommitLog offset the validating scan started at
	End             int64 // recovered end of the CommitLog
	SegmentsScanned int   // CommitLog segments the scan read
	RecordsScanned  int
	Stopped         string // why the scan stopped ("end of data" when nothing was cut)
	SegmentsRemoved int    // CommitLog segments deleted past the end
	CQEntriesCut    int64  // ConsumeQueue entries dropped for pointing past the end
	DispatchFrom    int64  // CommitLog offset re-dispatch started at
	// SegmentsDispatched counts the segments re-dispatch read, a rebuild of
	// damaged queues included.
	SegmentsDispatched int
	QueuesRebuilt      []string // "topic/queueId" of damaged queues rebuilt from the CommitLog
	Took               time.Duration
}

// recover brings the CommitLog, the ConsumeQueues and the index into agreement
// after Open (see the package comment), then flushes them and writes a fresh
// checkpoint.
func (s *Store) recover(clean bool, cp Checkpoint) error {
	begin := time.Now()
	from := int64(0) // abnormal without our checkpoint offsets: scan everything
	if cp.HasOffsets {
		from = cp.FlushedOffset
	}
	probe := newQueueProbe(s.cqs, s.deleted)
	st, err := s.cl.RecoverWith(clean, from, probe.record)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	rs := RecoveryStats{Clean: clean, ScanFrom: st.From, End: st.End, SegmentsScanned: st.Segments,
		RecordsScanned: st.Records, Stopped: st.Stopped, SegmentsRemoved: st.Removed}
	if rs.CQEntriesCut, err = s.cutBack(st.End); err != nil {
		return err
	}
	start := min(s.dispatchStart(clean, cp, st), max(probe.missingFrom, s.cl.MinOffset()))
	rs.DispatchFrom = start
	if err := s.redispatch(&rs, start, st.End, probe); err != nil {
		return err
	}
	s.restoreQueueOffsets()
	rs.Took = time.Since(begin)
	s.recovery = rs
	s.lg.Info("store recovered", zap.Bool("clean", clean), zap.Int64("commitLogEnd", rs.End),
		zap.Int64("scanFrom", rs.ScanFrom), zap.Int("segmentsScanned", rs.SegmentsScanned),
		zap.Int("recordsScanned", rs.RecordsScanned), zap.Int64("cqEntriesCut", rs.CQEntriesCut),
		zap.Int64("redispatchFrom", rs.DispatchFrom), zap.Int("segmentsRedispatched", rs.SegmentsDispatched),
		zap.Strings("queuesRebuilt", rs.QueuesRebuilt), zap.Int("queues", s.cqs.count()), zap.Duration("took", rs.Took))
	return s.flushLogics(0)
}

// cutBack removes every ConsumeQueue entry and index entry for a record at or
// past the CommitLog's recovered end, and returns how many entries went.
func (s *Store) cutBack(end int64) (int64, error) {
	var dropped int64
	for _, q := range s.cqs.all() {
		n, err := q.TruncateAfter(end)
		if err != nil {
			return dropped, fmt.Errorf("store: %w", err)
		}
		dropped += n
	}
	if s.idx != nil {
		if err := s.idx.Truncate(end); err != nil {
			return dropped, fmt.Errorf("store: truncate index: %w", err)
		}
	}
	return dropped, nil
}

// dispatchStart picks where re-dispatch begins: the checkpointed dispatch
// offset; without one, Java's rule after a clean stop (the largest CommitLog
// end any ConsumeQueue points at) or the scan start after a crash; the log's
// start when there are no ConsumeQueues at all (they were deleted: rebuild).
// After a crash it also reaches back to where the index must be rebuilt from
// when it dropped files written after the checkpoint (older entries included).
func (s *Store) dispatchStart(clean bool, cp Checkpoint, st commitlog.RecoverStats) int64 {
	var start int64
	switch {
	case s.cqs.count() == 0:
		start = 0
	case cp.HasOffsets:
		start = cp.DispatchedOffset
	case clean:
		for _, q := range s.cqs.all() {
			start = max(start, q.MaxPhyOffset())
		}
	default:
		start = st.From
	}
	if s.idx != nil {
		if off, lost := s.idx.ResumeOffset(); lost {
			start = min(start, off)
		}
	}
	return min(max(start, s.cl.MinOffset()), st.End)
}

// redispatch feeds the records in [start, end) to the ConsumeQueues and the
// index again (idempotently: entries already present are left alone). Queues
// found damaged, by the scan or by a record that would leave a gap in its
// queue, are deleted and rebuilt from the whole CommitLog first.
func (s *Store) redispatch(rs *RecoveryStats, start, end int64, probe *queueProbe) error {
	d := s.disp
	d.strict = probe.topics
	d.onSegment = func(f *mmapfile.MappedFile) {
		rs.SegmentsDispatched++
		s.lg.Info("re-dispatching commit log segment", zap.String("file", f.Path()),
			zap.Int("segmentsSoFar", rs.SegmentsDispatched), zap.Int64("end", end))
	}
	defer func() { d.strict, d.onSegment = nil, nil }()
	damaged := probe.damaged
	for {
		if len(damaged) > 0 {
			if err := s.rebuildQueues(rs, damaged, end); err != nil {
				return err
			}
		}
		d.offset.Store(start)
		err := d.dispatchUpTo(end)
		var gap *queueGapError
		if !errors.As(err, &gap) {
			if err != nil {
				return fmt.Errorf("store: re-dispatch from %d: %w", start, err)
			}
			return nil
		}
		s.lg.Warn("consume queue is missing entries", zap.Error(gap))
		if rebuilt := damaged[gap.key]; rebuilt {
			return fmt.Errorf("store: re-dispatch: %w (after rebuilding it)", gap)
		}
		damaged = map[commitlog.QueueKey]bool{gap.key: true}
		start = d.offset.Load() // the gap's record; everything before it is done
	}
}

// rebuildQueues deletes damaged queues and dispatches every record of theirs
// still in the CommitLog.
func (s *Store) rebuildQueues(rs *RecoveryStats, keys map[commitlog.QueueKey]bool, end int64) error {
	var names []string
	for k := range keys {
		if err := s.cqs.remove(k.Topic, k.QueueID); err != nil {
			return fmt.Errorf("store: rebuild %s/%d: %w", k.Topic, k.QueueID, err)
		}
		names = append(names, fmt.Sprintf("%s/%d", k.Topic, k.QueueID))
	}
	sort.Strings(names)
	s.lg.Warn("rebuilding damaged consume queues from the whole commit log", zap.Strings("queues", names),
		zap.Int64("from", s.cl.MinOffset()), zap.Int64("to", end))
	rs.QueuesRebuilt = append(rs.QueuesRebuilt, names...)
	d := s.disp
	strict := d.strict
	d.only, d.strict = keys, nil
	defer func() { d.only, d.strict = nil, strict }()
	d.offset.Store(s.cl.MinOffset())
	if err := d.dispatchUpTo(end); err != nil {
		return fmt.Errorf("store: rebuild %v: %w", names, err)
	}
	return nil
}

// restoreQueueOffsets corrects every queue's min offset and rebuilds the
// CommitLog's topic-queue offset table from the queues' max offsets.
func (s *Store) restoreQueueOffsets() {
	minPhy := s.cl.MinOffset()
	table := make(map[commitlog.QueueKey]int64)
	for _, q := range s.cqs.all() {
		q.CorrectMinOffset(minPhy)
		table[commitlog.QueueKey{Topic: q.Topic(), QueueID: q.QueueID()}] = q.MaxOffset()
	}
	s.cl.SetQueueOffsets(table)
}

// queueProbe checks, during the CommitLog recovery scan, that every valid
// record of a known topic has its ConsumeQueue entry. A record past its queue's
// end (its newest file or its directory lost) moves re-dispatch back to it; a
// record whose entry's file is missing marks its queue damaged. Topics without
// a directory are left alone: their ConsumeQueues went with the topic
// (DeleteTopic removes the directory).
type queueProbe struct {
	cqs         *queueTable
	deleted     *tombstones
	topics      map[string]bool // topics with a directory at open
	missingFrom int64           // first record lacking its entry at a queue's end
	damaged     map[commitlog.QueueKey]bool
}

func newQueueProbe(cqs *queueTable, deleted *tombstones) *queueProbe {
	return &queueProbe{cqs: cqs, deleted: deleted, topics: cqs.topics(), missingFrom: math.MaxInt64,
		damaged: make(map[commitlog.QueueKey]bool)}
}

// record is the scan's RecordFunc.
func (p *queueProbe) record(v message.View, off int64) {
	if tran := message.TransactionType(v.SysFlag()); tran != message.SysFlagTransactionNot &&
		tran != message.SysFlagTransactionCommit {
		return
	}
	if !p.topics[string(v.Topic())] || p.deleted.hidesBytes(v.Topic(), off) {
		return
	}
	q, qoff := p.cqs.getBytes(v.Topic(), v.QueueID()), v.QueueOffset()
	switch {
	case q == nil || qoff >= q.MaxOffset():
		p.missingFrom = min(p.missingFrom, off)
	case !q.Holds(qoff):
		p.damaged[commitlog.QueueKey{Topic: string(v.Topic()), QueueID: v.QueueID()}] = true
	}
}
