package store

import (
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/store/commitlog"
	"github.com/rocketgo/rocketgo/internal/store/consumequeue"
	"github.com/rocketgo/rocketgo/internal/store/mmapfile"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// GetStatus mirrors Java's GetMessageStatus.
type GetStatus int

// Pull outcomes (protocol.md §2.6 maps them to response codes).
const (
	Found GetStatus = iota
	NoMatchedMessage
	MessageWasRemoving
	OffsetFoundNull
	OffsetOverflowBadly
	OffsetOverflowOne
	OffsetTooSmall
	NoMatchedLogicQueue
	NoMessageInQueue
)

var getStatusNames = [...]string{
	"FOUND", "NO_MATCHED_MESSAGE", "MESSAGE_WAS_REMOVING", "OFFSET_FOUND_NULL", "OFFSET_OVERFLOW_BADLY",
	"OFFSET_OVERFLOW_ONE", "OFFSET_TOO_SMALL", "NO_MATCHED_LOGIC_QUEUE", "NO_MESSAGE_IN_QUEUE",
}

// String is the Java enum name.
func (s GetStatus) String() string {
	if s >= 0 && int(s) < len(getStatusNames) {
		return getStatusNames[s]
	}
	return "GetStatus(?)"
}

// MessageFilter selects the messages of a pull; a nil filter takes all.
type MessageFilter interface {
	// MatchByConsumeQueue tests the ConsumeQueue tagsCode (a tag subscription).
	MatchByConsumeQueue(tagsCode int64) bool
	// MatchByCommitLog tests the record's encoded properties (SQL92); the slice
	// is only valid during the call.
	MatchByCommitLog(props []byte) bool
}

// GetResult is the answer to a pull. Records are slices of the mapped
// CommitLog, valid until Release; Release it exactly once, after the response
// is written (or dropped).
type GetResult struct {
	Status                  GetStatus
	NextBeginOffset         int64
	MinOffset               int64
	MaxOffset               int64
	SuggestPullingFromSlave bool
	Records                 [][]byte
	QueueOffsets            []int64 // queue offset of each record
	BufferTotalSize         int

	files []*mmapfile.MappedFile // references held for Records
}

var getResultPool = sync.Pool{New: func() any { return new(GetResult) }}

// MessageCount is the number of records.
func (r *GetResult) MessageCount() int { return len(r.Records) }

// Release drops the references on the mapped segments and recycles r; neither
// r nor its Records may be used afterwards.
func (r *GetResult) Release() {
	for i, f := range r.files {
		f.Release()
		r.files[i] = nil
	}
	clear(r.Records)
	*r = GetResult{Records: r.Records[:0], QueueOffsets: r.QueueOffsets[:0], files: r.files[:0]}
	getResultPool.Put(r)
}

// hold keeps a reference on the CommitLog segment holding off for r, reusing
// the last one taken; nil when that part of the log is gone.
func (r *GetResult) hold(cl *commitlog.CommitLog, off int64) *mmapfile.MappedFile {
	if n := len(r.files); n > 0 {
		if f := r.files[n-1]; f.Start() <= off && off < f.End() {
			return f
		}
	}
	f := cl.AcquireAt(off)
	if f != nil {
		r.files = append(r.files, f)
	}
	return f
}

// GetMessage reads up to maxMsgNums messages of a topic queue from queue offset
// offset, with Java's statuses, nextBeginOffset rules and batch limits
// (DefaultMessageStore.getMessage). It returns nil when the store is closed
// (Java returns null; the broker answers SYSTEM_ERROR).
func (s *Store) GetMessage(group, topic string, queueID int32, offset int64, maxMsgNums int32, filter MessageFilter) *GetResult {
	if s.closed.Load() {
		return nil
	}
	begin := time.Now()
	r := getResultPool.Get().(*GetResult)
	q := s.cqs.get(topic, queueID)
	switch {
	case q == nil:
		r.Status, r.NextBeginOffset = NoMatchedLogicQueue, 0
	default:
		r.MinOffset, r.MaxOffset = q.MinOffset(), q.MaxOffset()
		switch {
		case r.MaxOffset == 0:
			r.Status, r.NextBeginOffset = NoMessageInQueue, 0
		case offset < r.MinOffset:
			r.Status, r.NextBeginOffset = OffsetTooSmall, r.MinOffset
		case offset == r.MaxOffset:
			r.Status, r.NextBeginOffset = OffsetOverflowOne, offset
		case offset > r.MaxOffset:
			r.Status, r.NextBeginOffset = OffsetOverflowBadly, r.MaxOffset
		default:
			s.read(r, q, offset, int(max(maxMsgNums, 1)), filter)
		}
	}
	s.slaveOffsetCorrection(r, offset)
	s.stats.get(r.Status == Found, len(r.Records), time.Since(begin))
	return r
}

// read fills r from the entries at offset (one ConsumeQueue file at most).
func (s *Store) read(r *GetResult, q *cq, offset int64, maxMsgNums int, filter MessageFilter) {
	es, ok := q.Entries(offset)
	if !ok {
		r.Status, r.NextBeginOffset = OffsetFoundNull, q.RollNextFile(offset)
		return
	}
	defer es.Release()
	r.Status = NoMatchedMessage
	maxPhy := s.cl.MaxOffset()
	memory := s.opts.TotalMemory * int64(s.opts.AccessMessageInMemoryMaxRatio) / 100
	maxScan := max(16000, maxMsgNums*consumequeue.EntrySize) / consumequeue.EntrySize
	nextFileStart := int64(-1)
	var maxPhyPulling int64
	i := 0
	err := mmapfile.CatchFault(func() error {
		for ; i < es.Len() && i < maxScan; i++ {
			e := es.At(i)
			if e.IsBlank() {
				continue
			}
			maxPhyPulling = e.Offset
			if nextFileStart >= 0 && e.Offset < nextFileStart {
				continue
			}
			inDisk := maxPhy-e.Offset > memory
			if s.batchFull(r, int(e.Size), maxMsgNums, inDisk) {
				break
			}
			if filter != nil && !filter.MatchByConsumeQueue(e.TagsCode) {
				continue
			}
			rec, ok := s.record(r, e)
			if !ok {
				if len(r.Records) == 0 {
					r.Status = MessageWasRemoving
				}
				nextFileStart = s.cl.NextFileStart(e.Offset)
				continue
			}
			if filter != nil && !matchProps(filter, rec) {
				continue
			}
			r.Records = append(r.Records, rec)
			r.QueueOffsets = append(r.QueueOffsets, offset+int64(i))
			r.BufferTotalSize += len(rec)
			r.Status = Found
			nextFileStart = -1
		}
		return nil
	})
	if err != nil {
		s.lg.Error("reading messages faulted", zap.String("topic", q.Topic()), zap.Int64("offset", offset), zap.Error(err))
	}
	r.NextBeginOffset = offset + int64(i)
	r.SuggestPullingFromSlave = maxPhy-maxPhyPulling > memory
}

// record returns the bytes of the record an entry points at.
func (s *Store) record(r *GetResult, e consumequeue.Entry) ([]byte, bool) {
	f := r.hold(s.cl, e.Offset)
	if f == nil {
		return nil, false
	}
	return commitlog.RecordIn(f, e.Offset, e.Size)
}

func matchProps(filter MessageFilter, rec []byte) bool {
	v, err := message.Parse(rec)
	return err == nil && filter.MatchByCommitLog(v.Properties())
}

// batchFull is Java's isTheBatchFull: at least one message, then maxMsgNums and
// the in-memory or on-disk byte and count limits.
func (s *Store) batchFull(r *GetResult, size, maxMsgNums int, inDisk bool) bool {
	total, count := r.BufferTotalSize, len(r.Records)
	if total == 0 || count == 0 {
		return false
	}
	if count >= maxMsgNums {
		return true
	}
	if inDisk {
		return total+size > s.opts.MaxTransferBytesOnMessageInDisk || count > s.opts.MaxTransferCountOnMessageInDisk-1
	}
	return total+size > s.opts.MaxTransferBytesOnMessageInMemory || count > s.opts.MaxTransferCountOnMessageInMemory-1
}
