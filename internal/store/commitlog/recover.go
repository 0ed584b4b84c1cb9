package commitlog

import (
	"bytes"
	"fmt"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/store/mmapfile"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// RecoverStats describes a recovery scan.
type RecoverStats struct {
	From        int64  // offset the scan started at (a segment start)
	End         int64  // end of the last valid record
	Records     int    // valid records scanned
	Segments    int    // segments read by the scan
	LastStoreTS int64  // store timestamp of the last valid record, 0 if none
	Stopped     string // why the scan stopped before the end of the segments, "" at a clean end
	Removed     int    // segments deleted past End
	// zeroTail: the scan ended at zeros or at the end of the last segment, not
	// at damaged bytes.
	zeroTail bool
}

// RecordFunc is told of every valid record a recovery scan reads, in log
// order; v is only valid during the call.
type RecordFunc func(v message.View, off int64)

// Recover finds the end of the valid data and truncates the log there (the rest
// of that segment zeroed, later segments deleted). After a clean shutdown it
// scans the last three segments; otherwise it scans from the start of the
// segment holding from (the checkpointed flushed offset), validating every record.
func (c *CommitLog) Recover(clean bool, from int64) (RecoverStats, error) {
	return c.RecoverWith(clean, from, nil)
}

// RecoverWith is Recover calling onRecord (when not nil) for every valid record
// scanned.
func (c *CommitLog) RecoverWith(clean bool, from int64, onRecord RecordFunc) (RecoverStats, error) {
	files := c.q.Files()
	if len(files) == 0 {
		return RecoverStats{}, nil
	}
	i := max(len(files)-3, 0)
	if !clean {
		i = segmentIndex(files, from)
	}
	var st RecoverStats
	err := mmapfile.CatchFault(func() error {
		st = c.scan(files, i, onRecord)
		return nil
	})
	if err != nil {
		return st, fmt.Errorf("commitlog: recovery scan of %s: %w", c.opts.Dir, err)
	}
	for _, f := range files {
		if f.Start() > st.End {
			st.Removed++
		}
	}
	// After a clean shutdown the bytes past the end are known to be zeros when
	// the scan ended on zeros; otherwise they are zeroed and synced.
	cut := c.q.Truncate
	if clean && st.zeroTail {
		cut = c.q.SetEnd
	}
	if err := cut(st.End); err != nil {
		return st, fmt.Errorf("commitlog: truncate %s at %d: %w", c.opts.Dir, st.End, err)
	}
	c.mu.Lock()
	c.mu.lastStoreTS = st.LastStoreTS
	c.mu.Unlock()
	c.flushedTS.Store(st.LastStoreTS)
	if last := c.q.Last(); last != nil {
		last.LastStoreTimestamp.Store(st.LastStoreTS)
	}
	c.lg.Info("commit log recovered", zap.Bool("clean", clean), zap.Int64("from", st.From),
		zap.Int64("end", st.End), zap.Int("records", st.Records), zap.String("stopped", st.Stopped),
		zap.Int("segmentsRemoved", st.Removed))
	return st, nil
}

// segmentIndex is the index of the segment holding off, clamped to the segments.
func segmentIndex(files []*mmapfile.MappedFile, off int64) int {
	for i, f := range files {
		if off < f.End() {
			return i
		}
	}
	return len(files) - 1
}

// scan validates records from the start of files[i] on, logging its progress
// segment by segment.
func (c *CommitLog) scan(files []*mmapfile.MappedFile, i int, onRecord RecordFunc) RecoverStats {
	st := RecoverStats{From: files[i].Start(), End: files[i].Start()}
	first := i
	for ; i < len(files); i++ {
		f := files[i]
		if f.Start() != st.End {
			st.Stopped = fmt.Sprintf("segment %s does not follow offset %d", f.Path(), st.End)
			return st
		}
		c.lg.Info("recovering commit log segment", zap.String("file", f.Path()),
			zap.Int("segment", i-first+1), zap.Int("of", len(files)-first), zap.Int("recordsSoFar", st.Records))
		st.Segments++
		pos, reason := c.scanSegment(f, &st, onRecord)
		st.End = f.Start() + pos
		if reason != "" {
			st.Stopped = reason
			st.zeroTail = reason == endOfData
			return st
		}
	}
	st.zeroTail = true
	return st
}

// endOfData is why a scan stops at zeros.
const endOfData = "end of data"

// scanSegment returns the end of the valid records in f, and why it stopped
// before the segment's end ("" when the segment is complete, closed by a BLANK).
func (c *CommitLog) scanSegment(f *mmapfile.MappedFile, st *RecoverStats, onRecord RecordFunc) (int64, string) {
	var pos int64
	for pos < f.Size() {
		if f.Size()-pos < message.BlankMinLen {
			return pos, fmt.Sprintf("%d bytes left at %d, too few for a record", f.Size()-pos, f.Start()+pos)
		}
		size, magic, _ := message.Peek(f.Bytes(pos, message.BlankMinLen))
		if size == 0 && magic == 0 {
			return pos, endOfData
		}
		if size == 0 {
			// A record whose write did not finish: its totalSize is
			// written last (message.Encode, recordWriter).
			return pos, fmt.Sprintf("unfinished record (totalSize 0) at %d", f.Start()+pos)
		}
		switch magic {
		case message.MagicBlank:
			if int64(size) != f.Size()-pos {
				return pos, fmt.Sprintf("BLANK of %d bytes at %d does not end the segment", size, f.Start()+pos)
			}
			return f.Size(), ""
		case message.MagicV1, message.MagicV2:
			if reason := c.checkRecord(f, pos, size); reason != "" {
				return pos, reason
			}
			v, _ := message.Parse(f.Bytes(pos, int64(size)))
			st.Records++
			st.LastStoreTS = v.StoreTimestamp()
			if onRecord != nil {
				onRecord(v, f.Start()+pos)
			}
			pos += int64(size)
		default:
			return pos, fmt.Sprintf("bad magic %#x at %d", magic, f.Start()+pos)
		}
	}
	return pos, ""
}

// checkRecord validates the record of size bytes at pos in f.
func (c *CommitLog) checkRecord(f *mmapfile.MappedFile, pos int64, size int32) string {
	at := f.Start() + pos
	if size < message.MinRecordSize || int64(size) > f.Size()-pos {
		return fmt.Sprintf("record size %d at %d out of range", size, at)
	}
	v, err := message.Parse(f.Bytes(pos, int64(size)))
	if err != nil {
		return fmt.Sprintf("record at %d: %v", at, err)
	}
	if v.PhysicalOffset() != at {
		return fmt.Sprintf("record at %d says it is at %d (stale data)", at, v.PhysicalOffset())
	}
	if t := v.Topic(); len(t) == 0 || bytes.IndexByte(t, 0) >= 0 {
		// No topic is empty or holds a NUL: zeros there are a torn tail.
		return fmt.Sprintf("record at %d has a damaged topic %q", at, t)
	}
	if c.opts.CheckCRCOnRecover && !v.CheckCRC() {
		return fmt.Sprintf("record at %d: %v", at, message.ErrBadCRC)
	}
	return ""
}
