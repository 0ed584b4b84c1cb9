package vfstest

import (
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"

	"github.com/rocketgo/rocketgo/internal/vfs"
)

// file is a vfs.File of the double.
type file struct {
	fs    *FS
	inner vfs.File
	n     *node
}

// do runs one file operation: rules, trace, then fn under the FS's lock.
func (fl *file) do(kind string, fn func() error, args ...any) error {
	op, err := fl.fs.begin(kind, fl.fs.pathOf(fl.n), args...)
	if err != nil {
		return err
	}
	fl.fs.mu.Lock()
	defer fl.fs.mu.Unlock()
	fl.fs.record(op)
	return fn()
}

// Name is where the file is now (it follows renames through the FS).
func (fl *file) Name() string { return fl.fs.pathOf(fl.n) }

func (fl *file) Read(b []byte) (n int, err error) {
	err = fl.do(OpRead, func() error { n, err = fl.inner.Read(b); return err }, len(b))
	return n, err
}

func (fl *file) ReadAt(b []byte, off int64) (n int, err error) {
	err = fl.do(OpReadAt, func() error { n, err = fl.inner.ReadAt(b, off); return err }, off, len(b))
	return n, err
}

func (fl *file) Write(b []byte) (n int, err error) {
	err = fl.do(OpWrite, func() error { n, err = fl.inner.Write(b); return err }, len(b))
	return n, err
}

func (fl *file) WriteAt(b []byte, off int64) (n int, err error) {
	err = fl.do(OpWriteAt, func() error { n, err = fl.inner.WriteAt(b, off); return err }, off, len(b))
	return n, err
}

func (fl *file) Stat() (st os.FileInfo, err error) {
	err = fl.do(OpStat, func() error { st, err = fl.inner.Stat(); return err })
	return st, err
}

func (fl *file) Truncate(size int64) error {
	return fl.do(OpTruncate, func() error { return fl.inner.Truncate(size) }, size)
}

func (fl *file) Allocate(off, n int64) error {
	return fl.do(OpFallocate, func() error { return fl.inner.Allocate(off, n) }, off, n)
}

func (fl *file) ZeroRange(off, n int64) error {
	return fl.do(OpZeroRange, func() error { return fl.inner.ZeroRange(off, n) }, off, n)
}

func (fl *file) PunchHole(off, n int64) error {
	return fl.do(OpPunchHole, func() error { return fl.inner.PunchHole(off, n) }, off, n)
}

func (fl *file) NextData(off int64) (start, end int64, err error) {
	err = fl.do(OpSeekData, func() error { start, end, err = fl.inner.NextData(off); return err }, off)
	return start, end, err
}

// SyncFS records every file and directory the double tracks as durable as it
// is now. It does not call syncfs(2): that would sync the whole disk of the
// machine the tests run on, and the power-loss image is the double's own.
func (fl *file) SyncFS() error {
	return fl.do(OpSyncFS, fl.fs.syncedAll)
}

func (fl *file) Close() error { return fl.do(OpClose, fl.inner.Close) }

// Sync fsyncs the file and records its whole content as durable.
func (fl *file) Sync() error {
	return fl.do(OpSync, func() error {
		if err := fl.inner.Sync(); err != nil {
			return err
		}
		st, err := fl.inner.Stat()
		if err != nil {
			return err
		}
		b := make([]byte, st.Size())
		if _, err := fl.inner.ReadAt(b, 0); err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("vfstest: read back %s: %w", fl.n.path, err)
		}
		fl.n.data = b
		return nil
	})
}

// Map maps the file; the mapping keeps a duplicate of the descriptor to read
// back what each msync made durable.
func (fl *file) Map(size int64) (m vfs.Mapping, err error) {
	err = fl.do(OpMmap, func() error {
		fd, ok := fl.inner.(interface{ Fd() uintptr })
		if !ok {
			return fmt.Errorf("vfstest: %s has no descriptor", fl.n.path)
		}
		dup, err := unix.Dup(int(fd.Fd()))
		if err != nil {
			return fmt.Errorf("vfstest: dup %s: %w", fl.n.path, err)
		}
		inner, err := fl.inner.Map(size)
		if err != nil {
			unix.Close(dup)
			return err
		}
		m = &mapping{fs: fl.fs, inner: inner, n: fl.n, fd: os.NewFile(uintptr(dup), fl.n.path)}
		return nil
	}, size)
	return m, err
}

// mapping is a vfs.Mapping of the double.
type mapping struct {
	fs    *FS
	inner vfs.Mapping
	n     *node
	fd    *os.File
}

func (m *mapping) Bytes() []byte { return m.inner.Bytes() }

func (m *mapping) do(kind string, fn func() error, args ...any) error {
	op, err := m.fs.begin(kind, m.fs.pathOf(m.n), args...)
	if err != nil {
		return err
	}
	m.fs.mu.Lock()
	defer m.fs.mu.Unlock()
	m.fs.record(op)
	return fn()
}

// Sync msyncs [off, off+n) and records that range as durable, read back from
// the page cache.
func (m *mapping) Sync(off, n int64) error {
	return m.do(OpMsync, func() error {
		if err := m.inner.Sync(off, n); err != nil {
			return err
		}
		b := make([]byte, n)
		if _, err := m.fd.ReadAt(b, off); err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("vfstest: read back %s: %w", m.n.path, err)
		}
		m.n.synced(off, b)
		return nil
	}, off, n)
}

func (m *mapping) Unmap() error {
	return m.do(OpMunmap, func() error {
		err := m.inner.Unmap()
		if cerr := m.fd.Close(); err == nil {
			err = cerr
		}
		return err
	})
}
