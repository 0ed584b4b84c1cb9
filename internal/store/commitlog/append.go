package commitlog

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"syscall"

	"github.com/rocketgo/rocketgo/internal/store/mmapfile"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// Result is the outcome of an append.
type Result struct {
	Status         PutStatus
	WroteOffset    int64 // CommitLog offset of the (first) record
	WroteBytes     int32 // bytes of all records
	QueueOffset    int64 // queue offset of the (first) record
	StoreTimestamp int64
	MsgNum         int32
	Offsets        []int64 // batches only: the offset of every record
	Err            error   // why, when Status is not PutOK
}

// Batch is a SEND_BATCH_MESSAGE: one topic queue, shared header fields, and a
// body of entries (message.BatchIterator) each stored as a full record.
type Batch struct {
	Topic          string
	QueueID        int32
	SysFlag        int32
	BornTimestamp  int64
	BornHost       netip.AddrPort
	ReconsumeTimes int32
	Body           []byte
	// Properties (encoded) are appended to every entry's properties.
	Properties string
}

var (
	errPoisoned = errors.New("commitlog: read-only after a failed flush; restart the broker")
	errTooLarge = errors.New("commitlog: message larger than maxMessageSize")
)

// WaitStoreMsgOK reports whether a put with these properties waits for its
// flush: Java's isWaitStoreMsgOK (absent, or "true" in any case).
func WaitStoreMsgOK(props string) bool {
	v, ok := message.LookupPropertyString(props, message.PropertyWaitStoreMsgOK)
	return !ok || strings.EqualFold(v, "true")
}

func (c *CommitLog) refuse() (Result, bool) {
	if p := c.poison.Load(); p != nil {
		return Result{Status: ServiceNotAvailable, Err: fmt.Errorf("%w: %w", errPoisoned, *p)}, true
	}
	if c.closed.Load() {
		return Result{Status: ServiceNotAvailable, Err: ErrClosed}, true
	}
	return Result{}, false
}

// Append writes m as one record. It fills in m's StoreHost, BodyCRC,
// PhysicalOffset, QueueOffset and StoreTimestamp, then waits for the flush as
// the flush type and m's WAIT property say. It does not allocate.
func (c *CommitLog) Append(m *message.Message) Result {
	res, _ := c.AppendAsync(m, nil)
	return res
}

// AppendAsync is Append without blocking for the flush: when the record must be durable before
// it is acknowledged (SYNC_FLUSH, WAIT not false) and is not yet, it returns pending, and done is
// told the outcome once, from the group commit (or, after SyncFlushTimeout, a timer): the
// caller then applies it with Settle. A nil done makes it Append. It does not allocate.
func (c *CommitLog) AppendAsync(m *message.Message, done Completion) (res Result, pending bool) {
	if r, refused := c.refuse(); refused {
		return r, false
	}
	m.StoreHost = c.opts.StoreHost
	if err := m.Check(); err != nil {
		if errors.Is(err, message.ErrPropertiesTooLong) {
			return Result{Status: PropertiesSizeExceeded, Err: err}, false
		}
		return Result{Status: MessageIllegal, Err: err}, false
	}
	size := m.EncodedSize()
	if size > c.opts.MaxMessageSize {
		return Result{Status: MessageIllegal, Err: errTooLarge}, false
	}
	m.BodyCRC = message.BodyCRC(m.Body)
	tran := message.TransactionType(m.SysFlag)
	inQueue := tran == message.SysFlagTransactionNot || tran == message.SysFlagTransactionCommit

	c.mu.Lock()
	f, ts, r, ok := c.beginLocked(size)
	if !ok {
		c.endLocked()
		c.refused(r)
		return r, false
	}
	key := QueueKey{m.Topic, m.QueueID}
	if inQueue {
		m.QueueOffset = c.mu.queueOffsets[key]
	} else {
		m.QueueOffset = 0
	}
	m.PhysicalOffset = f.Start() + c.mu.w.end(f)
	m.StoreTimestamp = ts
	err := c.mu.w.put(f, size, ts, func(b []byte) error {
		_, err := message.Encode(b, m)
		return err
	})
	if err != nil {
		c.endLocked()
		c.poisonWith(fmt.Errorf("commitlog: write at %d: %w", m.PhysicalOffset, err))
		return Result{Status: UnknownError, Err: err}, false
	}
	c.publishLocked(f)
	if inQueue {
		c.mu.queueOffsets[key] = m.QueueOffset + 1
	}
	c.endLocked()

	res = Result{
		Status: PutOK, WroteOffset: m.PhysicalOffset, WroteBytes: int32(size),
		QueueOffset: m.QueueOffset, StoreTimestamp: ts, MsgNum: 1,
	}
	pending = c.finish(&res, WaitStoreMsgOK(m.Properties), done)
	return res, pending
}

// AppendBatch writes every entry of b as a record, all in one segment, with
// consecutive queue offsets. Transactions are not allowed in a batch.
func (c *CommitLog) AppendBatch(b *Batch) Result {
	if r, refused := c.refuse(); refused {
		return r
	}
	if message.TransactionType(b.SysFlag) != message.SysFlagTransactionNot {
		return Result{Status: MessageIllegal, Err: errors.New("commitlog: a batch cannot be a transaction")}
	}
	if len(b.Topic) > message.MaxTopicLen {
		return Result{Status: MessageIllegal, Err: message.ErrTopicTooLong}
	}
	if len(b.Body) > c.opts.MaxMessageSize {
		return Result{Status: MessageIllegal, Err: errTooLarge}
	}
	proto := message.Message{
		Topic: b.Topic, QueueID: b.QueueID, SysFlag: b.SysFlag, BornTimestamp: b.BornTimestamp,
		BornHost: b.BornHost, StoreHost: c.opts.StoreHost, ReconsumeTimes: b.ReconsumeTimes,
	}
	total, n, r, ok := c.sizeBatch(&proto, b)
	if !ok {
		return r
	}
	offsets := make([]int64, 0, n)

	c.mu.Lock()
	f, ts, r, ok := c.beginLocked(total)
	if !ok {
		c.endLocked()
		c.refused(r)
		return r
	}
	key := QueueKey{b.Topic, b.QueueID}
	first := c.mu.queueOffsets[key]
	base := c.mu.w.end(f)
	err := c.mu.w.put(f, total, ts, func(dst []byte) error {
		var err error
		offsets, err = encodeBatch(dst, &proto, b, first, f.Start()+base, ts, offsets)
		return err
	})
	if err != nil {
		c.endLocked()
		c.poisonWith(fmt.Errorf("commitlog: write batch at %d: %w", f.Start()+base, err))
		return Result{Status: UnknownError, Err: err}
	}
	c.publishLocked(f)
	c.mu.queueOffsets[key] = first + int64(n)
	c.endLocked()

	res := Result{
		Status: PutOK, WroteOffset: f.Start() + base, WroteBytes: int32(total),
		QueueOffset: first, StoreTimestamp: ts, MsgNum: int32(n), Offsets: offsets,
	}
	c.finish(&res, WaitStoreMsgOK(b.Properties), nil)
	return res
}

// encodeBatch encodes b's entries into dst as records from offset at on, with queue offsets from
// first on, and appends each record's offset to offsets.
func encodeBatch(dst []byte, proto *message.Message, b *Batch, first, at, ts int64, offsets []int64) ([]int64, error) {
	pos := 0
	it := message.NewBatchIterator(b.Body)
	for i := int64(0); it.Next(); i++ {
		proto.QueueOffset = first + i
		proto.PhysicalOffset = at + int64(pos)
		proto.StoreTimestamp = ts
		k, err := message.EncodeBatchEntry(dst[pos:], proto, it.Entry(), b.Properties)
		if err != nil {
			return offsets, err
		}
		offsets = append(offsets, proto.PhysicalOffset)
		pos += k
	}
	return offsets, it.Err()
}

// sizeBatch validates the entries and returns the total record bytes and count.
func (c *CommitLog) sizeBatch(proto *message.Message, b *Batch) (total, n int, r Result, ok bool) {
	it := message.NewBatchIterator(b.Body)
	for it.Next() {
		e := it.Entry()
		size := message.BatchEntrySize(proto, e, b.Properties)
		if message.BatchPropsLen(e.Properties, b.Properties) > message.MaxPropertiesLen {
			return 0, 0, Result{Status: PropertiesSizeExceeded, Err: message.ErrPropertiesTooLong}, false
		}
		if size > c.opts.MaxMessageSize {
			return 0, 0, Result{Status: MessageIllegal, Err: errTooLarge}, false
		}
		total += size
		n++
	}
	if err := it.Err(); err != nil {
		return 0, 0, Result{Status: MessageIllegal, Err: err}, false
	}
	if n == 0 {
		return 0, 0, Result{Status: MessageIllegal, Err: errors.New("commitlog: empty batch")}, false
	}
	if int64(total)+message.BlankMinLen > c.opts.SegmentSize {
		return 0, 0, Result{Status: MessageIllegal, Err: errors.New("commitlog: batch larger than a segment")}, false
	}
	return total, n, Result{}, true
}

// beginLocked starts a put of size bytes under c.mu: it records the lock time,
// picks the segment (closing the current one with a BLANK when size+8 bytes do
// not fit) and the store timestamp. REQUIRES: c.mu.
func (c *CommitLog) beginLocked(size int) (*mmapfile.MappedFile, int64, Result, bool) {
	now := c.opts.Now()
	c.lockBegin.Store(now.UnixNano())
	if r, refused := c.refuse(); refused {
		return nil, 0, r, false
	}
	f, err := c.q.LastForWrite(c.MaxOffset())
	if err == nil && int64(size)+message.BlankMinLen > c.mu.w.room(f) {
		if err = c.closeSegmentLocked(f); err == nil {
			f, err = c.q.LastForWrite(f.End())
		}
	}
	if err != nil {
		return nil, 0, Result{Status: CreateMappedFileFailed, Err: createFailed(err)}, false
	}
	ts := max(now.UnixMilli(), c.mu.lastStoreTS)
	c.mu.lastStoreTS = ts
	return f, ts, Result{}, true
}

// refused finishes a put that beginLocked refused. When no new segment could
// be made, the previous one may just have been closed by a BLANK: it is made
// durable and readable like any write (the flusher is woken, nobody waits).
func (c *CommitLog) refused(r Result) {
	if r.Status != CreateMappedFileFailed {
		return
	}
	if c.opts.FlushType == AsyncFlush {
		c.signalReadable()
	}
	c.flusher.wait(c.MaxOffset(), false)
}

// createFailed explains a failure to create the next segment. The log stays
// consistent (the previous segment is closed by its BLANK, or there is none),
// so the next put simply tries again.
func createFailed(err error) error {
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return fmt.Errorf("commitlog: no disk space for the next commit log segment; "+
			"puts succeed again once space is freed: %w", err)
	}
	return fmt.Errorf("commitlog: cannot create the next commit log segment: %w", err)
}

// closeSegmentLocked fills the rest of f with a BLANK marker. REQUIRES: c.mu.
func (c *CommitLog) closeSegmentLocked(f *mmapfile.MappedFile) error {
	if err := c.mu.w.closeSegment(f); err != nil {
		c.poisonWith(fmt.Errorf("commitlog: close segment %s: %w", f.Path(), err))
		return err
	}
	c.pendEnd.Store(0)
	return nil
}

// publishLocked makes a put to f count in MaxOffset: at once when it went to the mapping,
// through pendEnd while it is pending. REQUIRES: c.mu.
func (c *CommitLog) publishLocked(f *mmapfile.MappedFile) {
	if c.mu.w.viaFile {
		c.pendEnd.Store(f.Start() + c.mu.w.end(f))
	}
}

// drainLocked writes the pending records to the file (before a sync). A failure poisons the
// log. REQUIRES: c.mu.
func (c *CommitLog) drainLocked() error {
	if err := c.mu.w.drain(); err != nil {
		err = fmt.Errorf("commitlog: write: %w", err)
		c.poisonWith(err)
		return err
	}
	c.pendEnd.Store(0)
	return nil
}

// endLocked releases the put lock. REQUIRES: c.mu.
func (c *CommitLog) endLocked() {
	c.lockBegin.Store(0)
	c.mu.Unlock()
}

// finish makes the new data visible and waits for durability as configured; with done, it
// registers done instead of waiting and reports whether it did (pending).
func (c *CommitLog) finish(res *Result, wait bool, done Completion) (pending bool) {
	if c.opts.FlushType == AsyncFlush {
		c.signalReadable()
	}
	end := res.WroteOffset + int64(res.WroteBytes)
	st := PutOK
	if done != nil && wait {
		if st, pending = c.flusher.waitAsync(end, done); pending {
			return true
		}
	} else {
		st = c.flusher.wait(end, wait)
	}
	c.Settle(res, st)
	return false
}

// Settle applies the flush outcome st to an append's result: its status, and the error that
// explains a failure.
func (c *CommitLog) Settle(res *Result, st PutStatus) {
	res.Status = st
	if res.Status != PutOK {
		switch {
		case c.Err() != nil:
			res.Err = fmt.Errorf("%w: %w", errPoisoned, c.Err())
		case res.Status == FlushDiskTimeout:
			res.Err = fmt.Errorf("commitlog: not durable within %v", c.opts.SyncFlushTimeout)
		default:
			res.Err = ErrClosed
		}
	}
}
