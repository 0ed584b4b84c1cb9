package store

import (
	"errors"
	"net/netip"
	"strings"
	"time"

	"github.com/rocketgo/rocketgo/internal/store/commitlog"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// Message is what a put stores: the broker fills Topic, QueueID, Flag,
// SysFlag, BornTimestamp, BornHost, ReconsumeTimes, PreparedTransactionOffset,
// Body and Properties; the store fills the rest.
type Message = message.Message

// Batch is a SEND_BATCH_MESSAGE put.
type Batch = commitlog.Batch

// PutStatus mirrors Java's PutMessageStatus.
type PutStatus = commitlog.PutStatus

// Put outcomes.
const (
	PutOK                  = commitlog.PutOK
	FlushDiskTimeout       = commitlog.FlushDiskTimeout
	FlushSlaveTimeout      = commitlog.FlushSlaveTimeout
	SlaveNotAvailable      = commitlog.SlaveNotAvailable
	ServiceNotAvailable    = commitlog.ServiceNotAvailable
	CreateMappedFileFailed = commitlog.CreateMappedFileFailed
	MessageIllegal         = commitlog.MessageIllegal
	PropertiesSizeExceeded = commitlog.PropertiesSizeExceeded
	OSPageCacheBusy        = commitlog.OSPageCacheBusy
	UnknownError           = commitlog.UnknownError
)

// PutResult is the outcome of a put. For a stored message (Status.Stored())
// the offsets are set even when the flush timed out.
type PutResult struct {
	Status         PutStatus
	WroteOffset    int64 // CommitLog offset of the (first) record
	WroteBytes     int32
	QueueOffset    int64 // queue offset of the (first) record
	StoreTimestamp int64
	MsgNum         int32
	Offsets        []int64 // batches: every record's CommitLog offset
	StoreHost      netip.AddrPort
	// Remark says what went wrong, for the response remark; Err is the same as an error.
	Remark string
	Err    error
	begin  time.Time // when a pending put began, for its latency
}

// MsgID is the offset message id of the (first) record.
func (r *PutResult) MsgID() string { return message.OffsetMsgID(r.StoreHost, r.WroteOffset) }

// AppendMsgIDs appends the offset message ids of every record, comma-separated
// as Java's batch send response carries them.
func (r *PutResult) AppendMsgIDs(dst []byte) []byte {
	if len(r.Offsets) == 0 {
		return message.AppendOffsetMsgID(dst, r.StoreHost, r.WroteOffset)
	}
	for i, off := range r.Offsets {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = message.AppendOffsetMsgID(dst, r.StoreHost, off)
	}
	return dst
}

var errBadTopic = errors.New("store: topic is empty, longer than 127 bytes, or not a plain name")

// ErrDiskFull matches (errors.Is) the error of a put refused by the disk guard.
var ErrDiskFull = errors.New("store: disk full")

// errDiskFull carries the disk guard's remark.
type errDiskFull struct{ remark string }

func (e errDiskFull) Error() string        { return e.remark }
func (e errDiskFull) Is(target error) bool { return target == ErrDiskFull }

// PutMessage stores one message. It does not allocate on success.
func (s *Store) PutMessage(m *Message) PutResult {
	if r, refused := s.refusePut(m.Topic); refused {
		return r
	}
	begin := time.Now()
	r := s.result(s.cl.Append(m))
	s.awaitReplica(&r, m.Properties)
	s.stats.put(r.Status, int64(r.WroteBytes), 1, time.Since(begin))
	return r
}

// Completion is told the flush outcome of a put PutMessageAsync left pending (see
// commitlog.Completion); the put's owner applies it with SettlePut. FlushDone must not block.
type Completion = commitlog.Completion

// PutMessageAsync is PutMessage that does not block a SYNC_FLUSH put until its group commit:
// when it returns pending, the record is written and readable once durable, and done is told
// the flush outcome later (possibly before PutMessageAsync returns), on the group commit's
// goroutine: pass it to SettlePut. A SYNC_MASTER put, which waits for a slave, blocks as
// PutMessage does and is never pending. It does not allocate on success.
func (s *Store) PutMessageAsync(m *Message, done Completion) (r PutResult, pending bool) {
	if s.opts.Role == RoleSyncMaster {
		return s.PutMessage(m), false
	}
	if r, refused := s.refusePut(m.Topic); refused {
		return r, false
	}
	begin := time.Now()
	a, pending := s.cl.AppendAsync(m, done)
	r = s.result(a)
	r.begin = begin
	if !pending {
		s.stats.put(r.Status, int64(r.WroteBytes), 1, time.Since(begin))
	}
	return r, pending
}

// SettlePut applies the flush outcome a pending put's Completion was told to its result.
func (s *Store) SettlePut(r *PutResult, st PutStatus) {
	a := commitlog.Result{Status: r.Status, Err: r.Err}
	s.cl.Settle(&a, st)
	r.Status, r.Err = a.Status, a.Err
	if a.Err != nil {
		r.Remark = a.Err.Error()
	}
	s.stats.put(r.Status, int64(r.WroteBytes), 1, time.Since(r.begin))
}

// PutMessages stores a SEND_BATCH_MESSAGE batch (one topic queue, every entry a
// record, all in one segment).
func (s *Store) PutMessages(b *Batch) PutResult {
	if r, refused := s.refusePut(b.Topic); refused {
		return r
	}
	begin := time.Now()
	r := s.result(s.cl.AppendBatch(b))
	s.awaitReplica(&r, b.Properties)
	s.stats.put(r.Status, int64(r.WroteBytes), int64(r.MsgNum), time.Since(begin))
	return r
}

// refusePut applies the store-level checks Java makes before a put.
func (s *Store) refusePut(topic string) (PutResult, bool) {
	full := s.clean.fullRemark()
	switch {
	case s.closed.Load():
		return s.failed(ServiceNotAvailable, ErrClosed), true
	case s.opts.Role == RoleSlave:
		return s.failed(ServiceNotAvailable, errSlave), true
	case full != "":
		return s.failed(ServiceNotAvailable, errDiskFull{full}), true
	case !validTopic(topic):
		return s.failed(MessageIllegal, errBadTopic), true
	case s.cl.LockHeldFor() > s.opts.OSPageCacheBusyTimeout:
		return s.failed(OSPageCacheBusy, errors.New("store: OS page cache busy: a put holds the lock too long")), true
	}
	return PutResult{}, false
}

// validTopic rejects names that cannot be a V1 record topic or a directory name.
func validTopic(t string) bool {
	return t != "" && len(t) <= message.MaxTopicLen && t != "." && t != ".." &&
		!strings.ContainsAny(t, "/\\\x00")
}

func (s *Store) failed(st PutStatus, err error) PutResult {
	s.stats.put(st, 0, 0, 0)
	return PutResult{Status: st, Err: err, Remark: err.Error(), StoreHost: s.opts.StoreHost}
}

func (s *Store) result(a commitlog.Result) PutResult {
	if a.Status == CreateMappedFileFailed {
		s.clean.kick() // maybe the disk is full: measure it and free space now
	}
	r := PutResult{
		Status: a.Status, WroteOffset: a.WroteOffset, WroteBytes: a.WroteBytes, QueueOffset: a.QueueOffset,
		StoreTimestamp: a.StoreTimestamp, MsgNum: a.MsgNum, Offsets: a.Offsets, StoreHost: s.opts.StoreHost,
		Err: a.Err,
	}
	if a.Err != nil {
		r.Remark = a.Err.Error()
	}
	return r
}
