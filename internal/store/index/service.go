package index

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/vfs"
)

// DefaultMaxQueryNum is Java's maxMsgsNumBatch, the cap on offsets one query returns.
const DefaultMaxQueryNum = 64

// Transaction bits of sysFlag (MessageSysFlag).
const (
	sysFlagTransactionMask     = 0xC
	sysFlagTransactionRollback = 0xC
)

// Options configure a Service. Zero values take the defaults.
type Options struct {
	// HashSlotNum and IndexNum are Java's maxHashSlotNum (5,000,000) and maxIndexNum
	// (20,000,000). They must match the files already on disk.
	HashSlotNum int
	IndexNum    int
	// MaxQueryNum caps the offsets one Query returns (Java maxMsgsNumBatch, 64).
	MaxQueryNum int
	// CleanShutdown is Java's lastExitOK. When false, files whose endTimestamp is newer than
	// CheckpointTimestamp (the checkpoint's indexMsgTimestamp) are deleted on Open, as Java's
	// IndexService.load does; the store re-dispatches what they held.
	CleanShutdown       bool
	CheckpointTimestamp int64
	// RecordTime reads a record's store timestamp from the commitlog; repairing
	// a file after an unclean shutdown uses it when the file's header on disk
	// predates its first entry. Without it such a file is deleted.
	RecordTime RecordTimeFunc
	// Now names new files; time.Now when nil.
	Now func() time.Time
	// FS holds the files; vfs.Default when nil.
	FS vfs.FS
}

func (o Options) withDefaults() Options {
	if o.HashSlotNum == 0 {
		o.HashSlotNum = DefaultHashSlotNum
	}
	if o.IndexNum == 0 {
		o.IndexNum = DefaultIndexNum
	}
	if o.MaxQueryNum == 0 {
		o.MaxQueryNum = DefaultMaxQueryNum
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.FS == nil {
		o.FS = vfs.Default
	}
	return o
}

// Request is what the dispatcher knows about one commitlog record.
type Request struct {
	Topic          string
	Keys           string // the KEYS property: keys separated by single spaces
	UniqKey        string // the UNIQ_KEY property; "" when absent
	PhyOffset      int64
	StoreTimestamp int64
	SysFlag        int32
}

// QueryResult is the answer to Query: matching commitlog offsets, newest first, and the end
// values of the newest index file (sent back as indexLastUpdateTimestamp and
// indexLastUpdatePhyoffset in QUERY_MESSAGE responses).
type QueryResult struct {
	PhyOffsets               []int64
	IndexLastUpdateTimestamp int64
	IndexLastUpdatePhyoffset int64
}

// Service is the store's index: the index files of one directory, oldest first, of which only
// the newest is written. BuildIndex is called from one dispatcher goroutine; Query from any
// number of goroutines at the same time.
type Service struct {
	dir    string
	layout Layout
	opts   Options
	lg     *zap.Logger

	mu     sync.RWMutex // guards files and closed; taken before any IndexFile lock
	files  []*IndexFile
	closed bool

	flushMu     sync.Mutex // serialises Flush
	lastFlushed atomic.Int64
	lostOnLoad  bool // Open dropped files newer than the checkpoint
}

// Open loads every index file in dir (creating dir if needed), oldest first by name.
func Open(dir string, opts Options, lg *zap.Logger) (*Service, error) {
	if lg == nil {
		lg = zap.NewNop()
	}
	opts = opts.withDefaults()
	layout := Layout{HashSlotNum: opts.HashSlotNum, IndexNum: opts.IndexNum}
	if err := layout.Validate(); err != nil {
		return nil, err
	}
	if opts.MaxQueryNum < 0 {
		return nil, fmt.Errorf("index: MaxQueryNum %d is negative", opts.MaxQueryNum)
	}
	if err := vfs.MkdirAll(opts.FS, dir); err != nil {
		return nil, fmt.Errorf("index: create dir %s: %w", dir, err)
	}
	s := &Service{dir: dir, layout: layout, opts: opts, lg: lg}
	s.lastFlushed.Store(max(opts.CheckpointTimestamp, 0))
	if err := s.loadAll(); err != nil {
		for _, f := range s.files {
			_ = f.Close()
		}
		return nil, err
	}
	return s, nil
}

func (s *Service) loadAll() error {
	names, err := s.fileNames()
	if err != nil {
		return err
	}
	for _, name := range names {
		if err := s.loadOne(filepath.Join(s.dir, name)); err != nil {
			return err
		}
	}
	if !s.opts.CleanShutdown {
		s.files, err = s.recoverUnclean(s.files)
	}
	return err
}

// fileNames lists the index files of the directory in name (= creation) order, as Java sorts
// them; other entries are logged and left alone.
func (s *Service) fileNames() ([]string, error) {
	ents, err := s.opts.FS.ReadDir(s.dir)
	if err != nil {
		return nil, fmt.Errorf("index: read dir %s: %w", s.dir, err)
	}
	var names []string
	for _, e := range ents {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), vfs.TempSuffix) && isFileName(strings.TrimSuffix(e.Name(), vfs.TempSuffix)) {
			if err := s.removeLeftover(e.Name()); err != nil {
				return nil, err
			}
			continue
		}
		if !e.Type().IsRegular() || !isFileName(e.Name()) {
			s.lg.Warn("index: ignoring unexpected entry in index directory", zap.String("dir", s.dir), zap.String("name", e.Name()))
			continue
		}
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names, nil
}

// removeLeftover deletes the temp file of a creation a crash interrupted.
func (s *Service) removeLeftover(name string) error {
	s.lg.Warn("index: deleting an index file whose creation never finished", zap.String("dir", s.dir), zap.String("name", name))
	if err := s.opts.FS.Remove(filepath.Join(s.dir, name)); err != nil {
		return fmt.Errorf("index: remove %s: %w", name, err)
	}
	return nil
}

func (s *Service) loadOne(path string) error {
	f, err := Load(s.opts.FS, path, s.layout)
	if errors.Is(err, ErrSizeMismatch) && s.abandonedCreation(path) {
		s.lg.Warn("index: deleting an index file whose creation never finished", zap.String("file", path))
		if err := s.opts.FS.Remove(path); err != nil {
			return fmt.Errorf("index: remove %s: %w", path, err)
		}
		return nil
	}
	if err != nil {
		return err
	}
	h := f.Header()
	s.lg.Info("index: loaded index file", zap.String("file", path), zap.Int32("indexCount", h.IndexCount),
		zap.Int64("beginPhyOffset", h.BeginPhyOffset), zap.Int64("endPhyOffset", h.EndPhyOffset),
		zap.Bool("readOnly", f.sealed))
	s.files = append(s.files, f)
	return nil
}

// abandonedCreation reports a file shorter than the layout holding no entries: one whose
// creation (preallocation) was cut short by a crash. Any other size mismatch is an error,
// most likely a changed maxHashSlotNum or maxIndexNum.
func (s *Service) abandonedCreation(path string) bool {
	st, err := s.opts.FS.Stat(path)
	if err != nil || st.Size() >= s.layout.FileSize() {
		return false
	}
	h, err := readHeaderFile(s.opts.FS, path)
	return err == nil && h.IndexCount <= 1
}

// BuildIndex indexes one dispatched record under topic#UNIQ_KEY and topic#key for each key in
// KEYS, in that order, as Java's IndexService.buildIndex does. Rollback records are skipped
// (prepared and committed ones are indexed), and so are records before the newest file's end
// offset and the newest indexed record itself, which makes re-dispatch after recovery
// idempotent (Java re-indexes a record at the end offset). A full file rolls to a new one.
func (s *Service) BuildIndex(req Request) error {
	if req.SysFlag&sysFlagTransactionMask == sysFlagTransactionRollback {
		return nil
	}
	s.mu.RLock()
	last := s.lastLocked()
	s.mu.RUnlock()
	if last != nil && last.indexedUpTo(req.PhyOffset) {
		return nil
	}
	f, err := s.writableFile()
	if err != nil {
		return err
	}
	prefix := topicPrefixHash(req.Topic)
	if req.UniqKey != "" {
		if f, err = s.put(f, positiveHash(javaHashAppend(prefix, req.UniqKey)), req); err != nil {
			return err
		}
	}
	for keys := req.Keys; keys != ""; {
		var key string
		if i := strings.IndexByte(keys, ' '); i >= 0 {
			key, keys = keys[:i], keys[i+1:]
		} else {
			key, keys = keys, ""
		}
		if key == "" {
			continue
		}
		if f, err = s.put(f, positiveHash(javaHashAppend(prefix, key)), req); err != nil {
			return err
		}
	}
	return nil
}

// put writes one key into f, rolling to a new file if f is full, and returns the file written.
func (s *Service) put(f *IndexFile, keyHash int32, req Request) (*IndexFile, error) {
	full, err := f.putHash(keyHash, req.PhyOffset, req.StoreTimestamp)
	if err != nil || !full {
		return f, err
	}
	if f, err = s.roll(f); err != nil {
		return nil, err
	}
	if full, err = f.putHash(keyHash, req.PhyOffset, req.StoreTimestamp); err == nil && full {
		err = fmt.Errorf("index: new file %s is full", f.Path())
	}
	return f, err
}

// writableFile is the newest file, or a new one when there is none or it is full.
func (s *Service) writableFile() (*IndexFile, error) {
	s.mu.RLock()
	closed, last := s.closed, s.lastLocked()
	s.mu.RUnlock()
	if closed {
		return nil, ErrClosed
	}
	if last != nil && !last.IsFull() {
		return last, nil
	}
	return s.roll(last)
}

// roll creates a new newest file following prev (nil when there is none). Only the dispatcher
// calls it, so the file is created outside the lock and then published.
func (s *Service) roll(prev *IndexFile) (*IndexFile, error) {
	var endPhy, endTs int64
	last := ""
	if prev != nil {
		h := prev.Header()
		endPhy, endTs, last = h.EndPhyOffset, h.EndTimestamp, prev.Name()
	}
	path := filepath.Join(s.dir, nextFileName(s.opts.Now(), last))
	f, err := Create(s.opts.FS, path, s.layout, endPhy, endTs)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, errors.Join(ErrClosed, f.Destroy())
	}
	s.files = append(s.files, f)
	s.mu.Unlock()
	s.lg.Info("index: created index file", zap.String("file", path), zap.Int64("beginPhyOffset", endPhy))
	return f, nil
}

// Query returns the offsets of messages indexed under topic#key whose store time (to the
// second, see EntryTime) lies in [begin, end], newest first, at most min(maxNum, MaxQueryNum).
// Files are searched newest first, skipping those whose time range misses the query and
// stopping at the first that begins before begin, as Java's IndexService.queryOffset does.
func (s *Service) Query(topic, key string, maxNum int, begin, end int64) QueryResult {
	maxNum = min(maxNum, s.opts.MaxQueryNum)
	keyHash := TopicKeyHash(topic, key)
	var res QueryResult
	s.mu.RLock()
	defer s.mu.RUnlock()
	for i := len(s.files) - 1; i >= 0; i-- {
		var stop bool
		res.PhyOffsets, stop = s.files[i].query(res.PhyOffsets, keyHash, maxNum, begin, end, i == len(s.files)-1, &res)
		if stop || len(res.PhyOffsets) >= maxNum {
			break
		}
	}
	return res
}

// query searches one file for Service.Query; stop reports that older files cannot match.
func (f *IndexFile) query(dst []int64, keyHash int32, maxNum int, begin, end int64, newest bool, res *QueryResult) ([]int64, bool) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if newest {
		res.IndexLastUpdateTimestamp, res.IndexLastUpdatePhyoffset = f.h.EndTimestamp, f.h.EndPhyOffset
	}
	if f.timeMatchedLocked(begin, end) {
		dst = f.appendSelectLocked(dst, keyHash, maxNum, begin, end)
	}
	return dst, f.h.BeginTimestamp < begin
}

// Flush msyncs every file changed since the last Flush. On success LastFlushedTimestamp becomes
// the newest file's end time as it was when Flush began. Errors are sticky (never retried).
func (s *Service) Flush() error {
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	s.mu.RLock()
	files := append([]*IndexFile(nil), s.files...)
	var ts int64
	if len(files) > 0 {
		ts = files[len(files)-1].EndTimestamp()
	}
	s.mu.RUnlock()
	for _, f := range files {
		if err := f.Flush(); err != nil && !errors.Is(err, ErrClosed) {
			return err
		}
	}
	if ts > s.lastFlushed.Load() {
		s.lastFlushed.Store(ts)
	}
	return nil
}

// LastFlushedTimestamp is the store time up to which every index entry is on disk, for the
// checkpoint's indexMsgTimestamp. It starts at Options.CheckpointTimestamp and never decreases.
func (s *Service) LastFlushedTimestamp() int64 { return s.lastFlushed.Load() }

// EndPhyOffset is the newest file's end offset: records before it are already indexed. 0 when
// there is no file.
func (s *Service) EndPhyOffset() int64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if last := s.lastLocked(); last != nil {
		return last.EndPhyOffset()
	}
	return 0
}

// LostOnLoad reports that Open repaired or dropped files written after the
// checkpoint (an unclean shutdown): the records from EndPhyOffset on must be
// indexed again.
func (s *Service) LostOnLoad() bool { return s.lostOnLoad }

// FileCount is the number of index files.
func (s *Service) FileCount() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.files)
}

// TotalSize is the disk space the index files take, in bytes.
func (s *Service) TotalSize() int64 {
	return int64(s.FileCount()) * s.layout.FileSize()
}

// DeleteExpired deletes, oldest first, the files whose end offset is below minCommitLogOffset
// (the commitlog's new minimum), stopping at the first that is not; the newest file is always
// kept. It returns how many files it deleted.
func (s *Service) DeleteExpired(minCommitLogOffset int64) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for n < len(s.files)-1 && s.files[n].EndPhyOffset() < minCommitLogOffset {
		n++
	}
	for i := 0; i < n; i++ {
		s.lg.Info("index: deleting expired index file", zap.String("file", s.files[i].Path()),
			zap.Int64("endPhyOffset", s.files[i].EndPhyOffset()), zap.Int64("minCommitLogOffset", minCommitLogOffset))
		if err := s.files[i].Destroy(); err != nil {
			// Destroy closed the file even if it could not remove it: drop it from the list.
			s.files = append(s.files[:0:0], s.files[i+1:]...)
			return i, err
		}
	}
	s.files = append(s.files[:0:0], s.files[n:]...)
	return n, nil
}

// Truncate makes the index agree with a commitlog recovered up to maxPhyOffset: entries at or
// beyond it are removed, newest first (IndexFile.Truncate), and files left without entries are
// deleted. Java instead deletes every file that reaches past the end; rewinding keeps the
// entries that are still valid. A file that cannot be written (no disk space) is deleted whole.
func (s *Service) Truncate(maxPhyOffset int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.files) > 0 {
		f := s.files[len(s.files)-1]
		if f.EndPhyOffset() < maxPhyOffset {
			return nil
		}
		remaining, err := f.Truncate(maxPhyOffset)
		if err != nil && !errors.Is(err, ErrSealed) {
			return err
		}
		if remaining > 0 {
			s.lg.Info("index: truncated index file", zap.String("file", f.Path()),
				zap.Int64("maxPhyOffset", maxPhyOffset), zap.Int("entries", remaining))
			return nil
		}
		s.lg.Info("index: deleting index file beyond the commitlog end", zap.String("file", f.Path()),
			zap.Int64("maxPhyOffset", maxPhyOffset))
		if err := f.Destroy(); err != nil {
			return err
		}
		s.files = s.files[:len(s.files)-1]
	}
	return nil
}

// Close unmaps every file without flushing (flush first). Later calls do nothing.
func (s *Service) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	var errs []error
	for _, f := range s.files {
		errs = append(errs, f.Close())
	}
	s.files = nil
	return errors.Join(errs...)
}

func (s *Service) lastLocked() *IndexFile {
	if len(s.files) == 0 {
		return nil
	}
	return s.files[len(s.files)-1]
}
