package storetest

import (
	"errors"
	"io"
	"math/rand/v2"
	"net/netip"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/internal/store/mmapfile"
	"github.com/rocketgo/rocketgo/internal/vfs"
	"github.com/rocketgo/rocketgo/internal/vfs/vfstest"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// Small sizes that make tests cross segment boundaries.
const (
	SegmentSize    = 64 << 10 // CommitLog segment
	EntriesPerFile = 1000     // ConsumeQueue file
)

// StoreHost is the store host tests write into records.
var StoreHost = netip.MustParseAddrPort("10.1.2.3:10911")

// Options returns Java's defaults with small files under dir: 64 KiB CommitLog
// segments, 1000-entry ConsumeQueue files, a small IndexFile, and fast flushes.
func Options(dir string) store.Options {
	o := store.DefaultOptions(dir)
	o.CommitLogSegmentSize = SegmentSize
	o.CQEntriesPerFile = EntriesPerFile
	o.StoreHost = StoreHost
	o.MaxHashSlotNum = 1000
	o.MaxIndexNum = 4000
	o.FlushIntervalCommitLog = 10 * time.Millisecond
	o.FlushCommitLogThoroughInterval = 50 * time.Millisecond
	o.FlushIntervalConsumeQueue = 10 * time.Millisecond
	o.FlushConsumeQueueThoroughInterval = 50 * time.Millisecond
	o.FS = WithDiskUsage(vfs.Default, NoDiskPressure)
	return o
}

// WithDiskUsage returns fsys with its DiskUsage replaced by usage, so that a
// test decides how full the disk looks.
func WithDiskUsage(fsys vfs.FS, usage func(path string) (total, free uint64, err error)) vfs.FS {
	return diskFS{fsys, usage}
}

type diskFS struct {
	vfs.FS
	usage func(string) (uint64, uint64, error)
}

func (d diskFS) DiskUsage(path string) (total, free uint64, err error) { return d.usage(path) }

// NoDiskPressure is a vfs.FS.DiskUsage that reports a 10% used disk,
// so that tests do not depend on the machine's disk.
func NoDiskPressure(string) (total, free uint64, err error) { return 100 << 30, 90 << 30, nil }

// DiskAt returns a vfs.FS.DiskUsage reporting the percentage *used
// reads at every call.
func DiskAt(used *atomic.Int64) func(string) (uint64, uint64, error) {
	return func(string) (uint64, uint64, error) {
		const total = 1000 << 20
		return total, uint64(total - total*used.Load()/100), nil
	}
}

// OnFS returns Options for a store on a vfstest.FS over a new temp dir of t,
// and the FS: every file operation of the store is traced there and can be
// failed or lost in a power loss.
func OnFS(t testing.TB) (store.Options, *vfstest.FS) {
	fs := vfstest.New(t)
	fs.SetDiskUsage(NoDiskPressure)
	o := Options(fs.Root())
	o.FS = fs
	return o, fs
}

// AfterPowerLoss writes what a power loss would leave of the store on fs
// (vfstest.FS.PowerLoss: only what was synced) into a new temp dir, and
// returns o moved there, on a new FS over it, for the store to be reopened.
func AfterPowerLoss(t testing.TB, fs *vfstest.FS, o store.Options) (store.Options, *vfstest.FS) {
	t.Helper()
	after, err := fs.PowerLoss(filepath.Join(t.TempDir(), "crashed"))
	if err != nil {
		t.Fatalf("power loss: %v", err)
	}
	after.SetDiskUsage(NoDiskPressure)
	o.RootDir, o.CommitLogDir, o.FS = after.Root(), "", after
	return o, after
}

// CommitLogSyncs is the vfstest rule path of the CommitLog's segments.
const CommitLogSyncs = "commitlog/"

// Open opens and starts a store, and closes it when the test ends.
func Open(t testing.TB, o store.Options) *store.Store {
	t.Helper()
	s, err := store.Open(o, zaptest.NewLogger(t), nil)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	s.Start()
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// Msg builds a message with the given properties.
func Msg(topic string, queueID int32, body []byte, props map[string]string) *store.Message {
	return &store.Message{
		Topic:         topic,
		QueueID:       queueID,
		Body:          body,
		Properties:    message.EncodeProperties(props),
		BornTimestamp: time.Now().UnixMilli(),
		BornHost:      netip.MustParseAddrPort("192.168.7.8:50000"),
	}
}

// CopyDir copies a store directory, as a crash would leave it when the store
// was not closed: every file as the page cache has it, the abort file included.
// (The lock file is copied too; flock does not travel with a copy.)
func CopyDir(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(path string, info os.FileInfo, err error) error {
		if errors.Is(err, os.ErrNotExist) {
			return nil // renamed or removed by the live store while we walked
		}
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if info.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if err := copyFile(path, target); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatalf("copy %s: %v", src, err)
	}
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// LoseCommitLogAfter makes a copied CommitLog look like a power loss after
// offset: the rest of that segment zeroed and later segments gone, as for data
// that was never synced.
func LoseCommitLogAfter(t testing.TB, commitLogDir string, segmentSize, offset int64) {
	t.Helper()
	entries, err := os.ReadDir(commitLogDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		start, ok := mmapfile.ParseFileName(e.Name())
		if !ok {
			continue
		}
		path := filepath.Join(commitLogDir, e.Name())
		switch {
		case start >= offset:
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
		case start+segmentSize > offset:
			Zero(t, path, offset-start, segmentSize-(offset-start))
		}
	}
}

// GarbleCommitLogAfter makes a copied CommitLog look like a power loss after
// offset on a disk that returns garbage for what was never synced: random
// bytes from offset to the end of its segment and in every later segment.
func GarbleCommitLogAfter(t testing.TB, commitLogDir string, segmentSize, offset int64, rng *rand.Rand) {
	t.Helper()
	entries, err := os.ReadDir(commitLogDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		start, ok := mmapfile.ParseFileName(e.Name())
		if !ok || start+segmentSize <= offset {
			continue
		}
		from := max(offset-start, 0)
		junk := make([]byte, segmentSize-from)
		for i := range junk {
			junk[i] = byte(rng.IntN(256))
		}
		WriteAt(t, filepath.Join(commitLogDir, e.Name()), from, junk)
	}
}

// Truncate cuts a file to size bytes.
func Truncate(t testing.TB, path string, size int64) {
	t.Helper()
	if err := os.Truncate(path, size); err != nil {
		t.Fatal(err)
	}
}

// Zero overwrites n bytes at off in a file with zeros.
func Zero(t testing.TB, path string, off, n int64) {
	t.Helper()
	WriteAt(t, path, off, make([]byte, n))
}

// FlipByte inverts one byte of a file.
func FlipByte(t testing.TB, path string, off int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := make([]byte, 1)
	if _, err := f.ReadAt(b, off); err != nil {
		t.Fatal(err)
	}
	b[0] ^= 0xFF
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
}

// WriteAt overwrites a file at off.
func WriteAt(t testing.TB, path string, off int64, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
}

// SegmentPath is the CommitLog segment file holding offset.
func SegmentPath(commitLogDir string, segmentSize, offset int64) string {
	return filepath.Join(commitLogDir, mmapfile.FileName(offset-offset%segmentSize))
}
