package store

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/store/mmapfile"
)

// deleteFilesBatchMax is how many CommitLog segments one clean pass deletes at
// most (Java MappedFileQueue.DELETE_FILES_BATCH_MAX).
const deleteFilesBatchMax = 10

// CleanResult tells what one pass of the clean service deleted.
type CleanResult struct {
	CommitLogSegments int // CommitLog segments deleted
	ConsumeQueueFiles int // ConsumeQueue files deleted
	IndexFiles        int // IndexFiles deleted
	// Forced reports that segments were deleted whatever their age, the disk
	// being over DiskSpaceCleanForciblyRatio.
	Forced bool
	// CommitLogMinOffset is the first CommitLog offset still stored afterwards.
	CommitLogMinOffset int64
}

// Deleted reports whether the pass deleted any file.
func (r CleanResult) Deleted() bool {
	return r.CommitLogSegments+r.ConsumeQueueFiles+r.IndexFiles > 0
}

// cleaner is the clean service (Java CleanCommitLogService followed by
// CleanConsumeQueueService), run by the store's loop every
// CleanResourceInterval:
//
//   - it measures the disk holding the CommitLog and the one holding the
//     ConsumeQueues; over DiskSpaceWarningLevelRatio it marks the store full,
//     so puts are refused, and it clears the mark by itself once usage is back
//     under it;
//   - at a DeleteWhen hour, or when usage is over DiskMaxUsedSpaceRatio, it
//     deletes the CommitLog segments older than FileReservedTime, oldest first,
//     stopping at the first younger one; over DiskSpaceCleanForciblyRatio (with
//     CleanFileForciblyEnable) it deletes them whatever their age. Never the
//     segment being written, at most deleteFilesBatchMax a pass;
//   - when the CommitLog's min offset moved, it deletes the ConsumeQueue files
//     and IndexFiles wholly below it; queue min offsets advance;
//   - it reports deleted segments that readers still map after
//     DestroyMapedFileIntervalForcibly.
type cleaner struct {
	s  *Store
	lg *zap.Logger

	full  atomic.Pointer[string] // why puts are refused; nil while there is room
	kickc chan struct{}

	mu      sync.Mutex // one pass at a time
	lastMin int64      // CommitLog min offset the logics were last cleaned for
	hanged  []hangedSegment
}

// hangedSegment is a deleted segment whose mapping readers still hold.
type hangedSegment struct {
	f        *mmapfile.MappedFile
	deleted  time.Time
	reported bool
}

func newCleaner(s *Store) *cleaner {
	return &cleaner{s: s, lg: s.lg.Named("clean"), kickc: make(chan struct{}, 1)}
}

// run is the clean goroutine: a pass every CleanResourceInterval, and one as
// soon as a put found no disk space for a new segment.
func (c *cleaner) run(stop <-chan struct{}) {
	t := time.NewTicker(c.s.opts.CleanResourceInterval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		case <-c.kickc:
		}
		c.runOnce()
	}
}

// kick asks for a pass now.
func (c *cleaner) kick() {
	select {
	case c.kickc <- struct{}{}:
	default:
	}
}

// fullRemark is why puts are refused, "" while the disk has room.
func (c *cleaner) fullRemark() string {
	if p := c.full.Load(); p != nil {
		return *p
	}
	return ""
}

// runOnce is one pass of the clean service.
func (c *cleaner) runOnce() CleanResult {
	c.mu.Lock()
	res := c.pass()
	c.mu.Unlock()
	c.notify(res)
	return res
}

// pass does the work of runOnce. REQUIRES: c.mu.
func (c *cleaner) pass() CleanResult {
	now := c.s.opts.Now()
	d := c.checkDisk()
	var res CleanResult
	if c.timeToDelete(now) || d.overMax {
		res.Forced = c.s.opts.CleanFileForciblyEnable && d.forcibly
		n, err := c.deleteSegments(now, c.s.opts.FileReservedTime, res.Forced, deleteFilesBatchMax)
		if err != nil {
			c.lg.Error("deleting commit log segments", zap.Error(err))
		}
		res.CommitLogSegments = n
		if res.CommitLogSegments == 0 && d.overMax {
			c.lg.Warn("disk space is running out but no commit log segment could be deleted",
				zap.String("usage", d.describe()))
		}
	}
	res.ConsumeQueueFiles, res.IndexFiles, _ = c.cleanLogics()
	c.reportHanged(now)
	c.finish(&res, d.describe())
	return res
}

// cleanNow is CleanExpired.
func (c *cleaner) cleanNow(maxAge time.Duration, force bool, maxFiles int) (int, error) {
	c.mu.Lock()
	res := CleanResult{Forced: force}
	n, err := c.deleteSegments(c.s.opts.Now(), maxAge, force, maxFiles)
	res.CommitLogSegments = n
	var lerr error
	res.ConsumeQueueFiles, res.IndexFiles, lerr = c.cleanLogics()
	c.finish(&res, "on request")
	c.mu.Unlock()
	c.notify(res)
	return n, errors.Join(err, lerr)
}

// finish completes a pass: the new min offset, and a log line when files went.
func (c *cleaner) finish(res *CleanResult, usage string) {
	res.CommitLogMinOffset = c.s.cl.MinOffset()
	if res.Deleted() {
		c.lg.Info("clean pass deleted files", zap.Int("commitLogSegments", res.CommitLogSegments),
			zap.Int("consumeQueueFiles", res.ConsumeQueueFiles), zap.Int("indexFiles", res.IndexFiles),
			zap.Bool("forced", res.Forced), zap.Int64("commitLogMinOffset", res.CommitLogMinOffset),
			zap.String("usage", usage))
	}
}

// notify tells OnCleaned when files went (outside the pass lock).
func (c *cleaner) notify(res CleanResult) {
	if f := c.s.opts.OnCleaned; f != nil && res.Deleted() {
		f(res)
	}
}

// timeToDelete reports whether now's hour is one of DeleteWhen.
func (c *cleaner) timeToDelete(now time.Time) bool {
	return slices.Contains(c.s.opts.DeleteWhen, now.Hour())
}

// deleteSegments deletes the CommitLog segments last modified reserved or more
// before now (all but the newest when force is set), oldest first, stopping at
// the first younger one, at most max (≤ 0: no limit).
func (c *cleaner) deleteSegments(now time.Time, reserved time.Duration, force bool, max int) (int, error) {
	gone, err := c.s.cl.Queue().DeleteFirstFiles(max, func(f *mmapfile.MappedFile) bool {
		if force {
			return true
		}
		st, err := c.s.opts.FS.Stat(f.Path())
		return err == nil && !now.Before(st.ModTime().Add(reserved))
	})
	for _, f := range gone {
		if f.Refs() > 0 {
			c.hanged = append(c.hanged, hangedSegment{f: f, deleted: now})
		}
	}
	return len(gone), err
}

// cleanLogics deletes the ConsumeQueue files and IndexFiles below the
// CommitLog's min offset once it moved (Java CleanConsumeQueueService).
func (c *cleaner) cleanLogics() (cqFiles, indexFiles int, err error) {
	minPhy := c.s.cl.MinOffset()
	if minPhy <= c.lastMin {
		return 0, 0, nil
	}
	var errs []error
	for _, q := range c.s.cqs.all() {
		n, err := q.DeleteBelow(minPhy)
		cqFiles += n
		errs = append(errs, err)
	}
	if c.s.idx != nil {
		n, err := c.s.idx.DeleteExpired(minPhy)
		indexFiles = n
		errs = append(errs, err)
	}
	errs = append(errs, c.s.deleted.expire(minPhy))
	if err := errors.Join(errs...); err != nil {
		c.lg.Error("deleting consume queue and index files", zap.Int64("commitLogMinOffset", minPhy), zap.Error(err))
		return cqFiles, indexFiles, err // try again next pass
	}
	c.lastMin = minPhy
	return cqFiles, indexFiles, nil
}

// CleanExpired deletes, now, the CommitLog segments last modified maxAge or
// more ago (every one but the newest when force is set), oldest first, at most
// maxFiles (≤ 0: no limit), then the ConsumeQueue and index files below the
// new min offset, and tells OnCleaned. The clean service does this on its own
// schedule; CleanExpired serves an operator's request (Java's
// executeDeleteFilesManually) and tests.
func (s *Store) CleanExpired(maxAge time.Duration, force bool, maxFiles int) (int, error) {
	if s.closed.Load() {
		return 0, ErrClosed
	}
	return s.clean.cleanNow(maxAge, force, maxFiles)
}

// reportHanged logs deleted segments readers still hold after
// DestroyMapedFileIntervalForcibly: their space is only freed once the last
// reader releases them (Java would unmap them under the reader).
func (c *cleaner) reportHanged(now time.Time) {
	keep := c.hanged[:0]
	for _, h := range c.hanged {
		refs := h.f.Refs()
		if refs <= 0 {
			continue
		}
		if !h.reported && now.Sub(h.deleted) >= c.s.opts.DestroyMapedFileIntervalForcibly {
			c.lg.Error("a deleted commit log segment is still mapped by readers; its disk space is freed when they finish",
				zap.String("file", h.f.Path()), zap.Int64("readers", refs), zap.Duration("deletedAgo", now.Sub(h.deleted)))
			h.reported = true
		}
		keep = append(keep, h)
	}
	clear(c.hanged[len(keep):])
	c.hanged = keep
}

// diskState is what checkDisk found.
type diskState struct {
	usage    []dirUsage
	overMax  bool // over DiskMaxUsedSpaceRatio (or unknown): expired segments go now
	forcibly bool // over DiskSpaceCleanForciblyRatio: segments go whatever their age
}

type dirUsage struct {
	dir   string
	ratio float64 // used / total, -1 when unknown
}

func (d diskState) describe() string {
	s := ""
	for i, u := range d.usage {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s %.1f%%", u.dir, u.ratio*100)
	}
	return s
}

// checkDisk measures the CommitLog and ConsumeQueue disks and sets or clears
// the full mark.
func (c *cleaner) checkDisk() diskState {
	o := &c.s.opts
	var d diskState
	full := ""
	for _, dir := range []string{o.CommitLogDir, o.consumeQueueDir()} {
		u := dirUsage{dir: dir, ratio: c.usedRatio(dir)}
		d.usage = append(d.usage, u)
		pct := u.ratio * 100
		switch {
		case u.ratio < 0:
			d.overMax = true // Java cleans when it cannot tell
			continue
		case pct > float64(o.DiskSpaceWarningLevelRatio):
			if full == "" {
				full = fmt.Sprintf("disk space is %.1f%% used, over diskSpaceWarningLevelRatio %d%% (%s): "+
					"the store refuses writes until space is freed", pct, o.DiskSpaceWarningLevelRatio, dir)
			}
			d.forcibly = true
		case pct > float64(o.DiskSpaceCleanForciblyRatio):
			d.forcibly = true
		}
		if pct > float64(o.DiskMaxUsedSpaceRatio) {
			d.overMax = true
		}
	}
	c.setFull(full, d)
	return d
}

// usedRatio is the used share of dir's file system, -1 when unknown.
func (c *cleaner) usedRatio(dir string) float64 {
	total, free, err := c.s.opts.FS.DiskUsage(dir)
	if err != nil || total == 0 {
		c.lg.Warn("cannot measure disk usage", zap.String("dir", dir), zap.Error(err))
		return -1
	}
	return float64(total-min(free, total)) / float64(total)
}

// setFull marks the store full (remark != "") or not, logging changes.
func (c *cleaner) setFull(remark string, d diskState) {
	if remark == "" {
		if c.full.Swap(nil) != nil {
			c.lg.Info("disk space is back under diskSpaceWarningLevelRatio: the store accepts writes again",
				zap.String("usage", d.describe()))
		}
		return
	}
	if c.full.Swap(&remark) == nil {
		c.lg.Error("disk nearly full: the store refuses writes", zap.String("why", remark))
	}
}
