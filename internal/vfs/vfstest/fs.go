package vfstest

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/rocketgo/rocketgo/internal/vfs"
)

// FS is the test double; see the package comment. Its methods are safe for
// concurrent use.
type FS struct {
	root  string
	inner vfs.FS
	rules rules

	mu        sync.Mutex
	trace     []string         // REQUIRES mu
	nodes     map[uint64]*node // live inodes seen, by number; REQUIRES mu
	diskUsage func(string) (total, free uint64, err error)
}

// New returns an FS over a new temp dir of t.
func New(t testing.TB) *FS { return NewAt(t.TempDir()) }

// NewAt returns an FS over root, which must exist. What is under root now is
// taken as durable.
func NewAt(root string) *FS {
	return &FS{root: filepath.Clean(root), inner: vfs.Default, nodes: map[uint64]*node{}}
}

var _ vfs.FS = (*FS)(nil)

// Root is the directory the FS works under.
func (f *FS) Root() string { return f.root }

// Path joins a path relative to the root onto it.
func (f *FS) Path(rel ...string) string { return filepath.Join(append([]string{f.root}, rel...)...) }

// SetDiskUsage makes DiskUsage report what fn says instead of measuring the
// disk (nil measures it again).
func (f *FS) SetDiskUsage(fn func(path string) (total, free uint64, err error)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.diskUsage = fn
}

// Trace returns the operations recorded so far, one line each.
func (f *FS) Trace() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.trace...)
}

// ResetTrace forgets the operations recorded so far.
func (f *FS) ResetTrace() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.trace = nil
}

// Count is the number of recorded operations of kind on paths matching
// pattern (as in Rule.Path).
func (f *FS) Count(kind, pattern string) int {
	r := &rule{Rule: Rule{Kind: kind, Path: pattern}}
	n := 0
	for _, line := range f.Trace() {
		k, rest, _ := strings.Cut(line, ": ")
		p, _, _ := strings.Cut(rest, " ")
		if r.match(Op{Kind: k, Path: p}) {
			n++
		}
	}
	return n
}

// Rel is p relative to the root as the trace and Rule.Path write it, or p
// itself outside the root.
func (f *FS) Rel(p string) string { return f.rel(p) }

// rel is p relative to the root, or p itself outside it.
func (f *FS) rel(p string) string {
	r, err := filepath.Rel(f.root, p)
	if err != nil || r == ".." || strings.HasPrefix(r, "../") {
		return p
	}
	return filepath.ToSlash(r)
}

// begin applies the rules to an operation on p and returns it, or the
// injected error (recorded in the trace). It takes no lock while the rules'
// Before functions run.
func (f *FS) begin(kind, p string, args ...any) (Op, error) {
	op := Op{Kind: kind, Path: f.rel(p)}
	op.Line = kind + ": " + op.Path
	for _, a := range args {
		op.Line += fmt.Sprint(" ", a)
	}
	err := f.apply(op)
	if err != nil {
		f.mu.Lock()
		f.trace = append(f.trace, op.Line+" = injected "+errors.Unwrap(err).Error())
		f.mu.Unlock()
	}
	return op, err
}

// record appends a performed operation. REQUIRES f.mu.
func (f *FS) record(op Op) { f.trace = append(f.trace, op.Line) }

// Create implements vfs.FS.
func (f *FS) Create(name string) (vfs.File, error) {
	op, err := f.begin(OpCreate, name)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record(op)
	f.trackParent(name)
	existing, _ := f.lookup(name)
	if existing != nil {
		f.track(existing, name)
	}
	inner, err := f.inner.Create(name)
	if err != nil {
		return nil, err
	}
	n, err := f.lookup(name)
	if err != nil {
		inner.Close()
		return nil, err
	}
	if existing == nil {
		n.tracked = true // new: nothing of it is durable yet
	}
	return &file{fs: f, inner: inner, n: n}, nil
}

// Open implements vfs.FS.
func (f *FS) Open(name string) (vfs.File, error) { return f.open(OpOpen, name, f.inner.Open) }

// OpenReadWrite implements vfs.FS.
func (f *FS) OpenReadWrite(name string) (vfs.File, error) {
	return f.open(OpOpenRW, name, f.inner.OpenReadWrite)
}

func (f *FS) open(kind, name string, open func(string) (vfs.File, error)) (vfs.File, error) {
	op, err := f.begin(kind, name)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record(op)
	n, err := f.lookup(name)
	if err != nil {
		return nil, err
	}
	if kind == OpOpenRW {
		f.track(n, name)
	}
	inner, err := open(name)
	if err != nil {
		return nil, err
	}
	return &file{fs: f, inner: inner, n: n}, nil
}

// Remove implements vfs.FS.
func (f *FS) Remove(name string) error {
	op, err := f.begin(OpRemove, name)
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record(op)
	f.trackParent(name)
	n, err := f.lookup(name)
	if err != nil {
		return err
	}
	f.track(n, name)
	if err := f.inner.Remove(name); err != nil {
		return err
	}
	delete(f.nodes, n.ino)
	return nil
}

// RemoveAll implements vfs.FS.
func (f *FS) RemoveAll(name string) error {
	op, err := f.begin(OpRemoveAll, name)
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record(op)
	f.trackParent(name)
	gone := f.trackTree(name)
	if err := f.inner.RemoveAll(name); err != nil {
		return err
	}
	for _, n := range gone {
		delete(f.nodes, n.ino)
	}
	return nil
}

// Rename implements vfs.FS.
func (f *FS) Rename(oldname, newname string) error {
	op, err := f.begin(OpRename, oldname, "->", f.rel(newname))
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record(op)
	f.trackParent(oldname)
	f.trackParent(newname)
	moved := f.trackTree(oldname)
	replaced := f.trackTree(newname)
	if err := f.inner.Rename(oldname, newname); err != nil {
		return err
	}
	if len(moved) > 0 {
		moved[0].path = newname
	}
	for _, n := range replaced {
		delete(f.nodes, n.ino)
	}
	return nil
}

// Mkdir implements vfs.FS.
func (f *FS) Mkdir(name string) error {
	op, err := f.begin(OpMkdir, name)
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record(op)
	f.trackParent(name)
	if err := f.inner.Mkdir(name); err != nil {
		return err
	}
	n, err := f.lookup(name)
	if err != nil {
		return err
	}
	n.tracked, n.entries = true, map[string]*node{}
	return nil
}

// ReadDir implements vfs.FS.
func (f *FS) ReadDir(name string) ([]os.DirEntry, error) {
	op, err := f.begin(OpReadDir, name)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record(op)
	return f.inner.ReadDir(name) // sorted by name
}

// Stat implements vfs.FS.
func (f *FS) Stat(name string) (os.FileInfo, error) {
	op, err := f.begin(OpStat, name)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record(op)
	return f.inner.Stat(name)
}

// SyncDir implements vfs.FS: after it, the directory's current entries are
// what a power loss keeps.
func (f *FS) SyncDir(name string) error {
	op, err := f.begin(OpSyncDir, name)
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record(op)
	if err := f.inner.SyncDir(name); err != nil {
		return err
	}
	n, err := f.lookup(name)
	if err != nil {
		return err
	}
	entries, err := f.list(name)
	if err != nil {
		return err
	}
	n.tracked, n.entries = true, entries
	return nil
}

// Lock implements vfs.FS.
func (f *FS) Lock(name string) (io.Closer, error) {
	op, err := f.begin(OpLock, name)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record(op)
	f.trackParent(name)
	existing, _ := f.lookup(name)
	c, err := f.inner.Lock(name)
	if err == nil && existing == nil {
		if n, lerr := f.lookup(name); lerr == nil {
			n.tracked = true // new and empty
		}
	}
	return c, err
}

// DiskUsage implements vfs.FS, measuring the disk unless SetDiskUsage
// replaced it.
func (f *FS) DiskUsage(path string) (total, free uint64, err error) {
	op, err := f.begin(OpStatfs, path)
	if err != nil {
		return 0, 0, err
	}
	f.mu.Lock()
	f.record(op)
	fn := f.diskUsage
	f.mu.Unlock()
	if fn != nil {
		return fn(path)
	}
	return f.inner.DiskUsage(path)
}

// isNotExist reports a missing path.
func isNotExist(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}
