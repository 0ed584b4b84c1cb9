package vfs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
)

// TempSuffix is appended to a file's name while WriteFile or CreateAllocated
// prepare it. A leftover <name>.tmp is an interrupted write: its owner removes
// it or overwrites it.
const TempSuffix = ".tmp"

// zeroChunk is the write size of Allocate's zero-fill fallback.
const zeroChunk = 1 << 20

// WriteFile replaces path with data atomically: it writes path.tmp, fsyncs
// it, renames it over path and fsyncs the directory. On error path is left as
// it was and the temp file is removed. Writers of one path must not overlap.
func WriteFile(fsys FS, path string, data []byte) error {
	tmp := path + TempSuffix
	err := writeSynced(fsys, tmp, data)
	if err == nil {
		err = fsys.Rename(tmp, path)
	}
	if err != nil {
		_ = fsys.Remove(tmp)
		return fmt.Errorf("vfs: write %s: %w", path, err)
	}
	return fsys.SyncDir(filepath.Dir(path))
}

// writeSynced creates path with data and fsyncs it.
func writeSynced(fsys FS, path string, data []byte) error {
	f, err := fsys.Create(path)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// ReadFile returns the content of path.
func ReadFile(fsys FS, path string) ([]byte, error) {
	f, err := fsys.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	b := make([]byte, st.Size())
	n, err := f.ReadAt(b, 0)
	if errors.Is(err, io.EOF) {
		err = nil // shrunk since the stat
	}
	return b[:n], err
}

// CreateAllocated creates path with size bytes, every block allocated on disk:
// it is made as path.tmp, allocated (see Allocate), fsynced, renamed to path
// and the directory fsynced. The file is returned open for reading and
// writing. On error nothing is left behind. A full disk is reported here
// (ENOSPC), so that writing the file through a mapping cannot fault later.
func CreateAllocated(fsys FS, path string, size int64) (File, error) {
	tmp := path + TempSuffix
	f, err := fsys.Create(tmp)
	if err != nil {
		return nil, fmt.Errorf("vfs: create %s: %w", tmp, err)
	}
	fail := func(op string, err error) (File, error) {
		f.Close()
		_ = fsys.Remove(tmp)
		return nil, fmt.Errorf("vfs: %s %s: %w", op, tmp, err)
	}
	if err := Allocate(f, 0, size); err != nil {
		return fail("allocate", err)
	}
	if err := f.Sync(); err != nil {
		return fail("sync", err)
	}
	if err := fsys.Rename(tmp, path); err != nil {
		return fail("rename", err)
	}
	if err := fsys.SyncDir(filepath.Dir(path)); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// CreateSparse creates path with size bytes of which only [0, alloc) has
// disk blocks (Allocate): the rest is a hole that reads as zeros and takes no
// space until the owner allocates it, before it writes there through a
// mapping. The file is made as path.tmp, sized (ftruncate), allocated and
// renamed to path, so path never names a file of another size. Nothing is
// synced: the file and its name become durable with the next SyncFS, or with
// an fsync of the file and of its directory. On error nothing is left behind;
// a full disk is ENOSPC here.
func CreateSparse(fsys FS, path string, size, alloc int64) (File, error) {
	tmp := path + TempSuffix
	f, err := fsys.Create(tmp)
	if err != nil {
		return nil, fmt.Errorf("vfs: create %s: %w", tmp, err)
	}
	fail := func(op string, err error) (File, error) {
		f.Close()
		_ = fsys.Remove(tmp)
		return nil, fmt.Errorf("vfs: %s %s: %w", op, tmp, err)
	}
	if err := f.Truncate(size); err != nil {
		return fail("truncate", err)
	}
	if err := Allocate(f, 0, min(alloc, size)); err != nil {
		return fail("allocate", err)
	}
	if err := fsys.Rename(tmp, path); err != nil {
		return fail("rename", err)
	}
	return f, nil
}

// Allocate gives f blocks for [from, size): by fallocate, or where the file
// system cannot, by writing zeros over [from, size) (the bytes before from are
// kept).
func Allocate(f File, from, size int64) error {
	if from >= size {
		return nil
	}
	err := f.Allocate(from, size-from)
	if !errors.Is(err, ErrUnsupported) {
		return err
	}
	zeros := make([]byte, min(zeroChunk, size-from))
	for off := from; off < size; {
		n := min(int64(len(zeros)), size-off)
		if _, err := f.WriteAt(zeros[:n], off); err != nil {
			return err
		}
		off += n
	}
	return nil
}

// MkdirAll creates dir and any missing parents, fsyncing the parent of each
// directory it creates so that the new entries survive a power loss. An
// existing directory is left alone.
func MkdirAll(fsys FS, dir string) error { return mkdirAll(fsys, dir, true) }

// MkdirAllNoSync is MkdirAll without the directory fsyncs: the new
// directories become durable with the next SyncFS (or an fsync of each
// parent). For owners that make many directories and sync them together.
func MkdirAllNoSync(fsys FS, dir string) error { return mkdirAll(fsys, dir, false) }

func mkdirAll(fsys FS, dir string, sync bool) error {
	st, err := fsys.Stat(dir)
	if err == nil {
		if !st.IsDir() {
			return fmt.Errorf("vfs: mkdir %s: %w", dir, fs.ErrExist)
		}
		return nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("vfs: mkdir %s: %w", dir, err)
	}
	parent := filepath.Dir(dir)
	if parent != dir {
		if err := mkdirAll(fsys, parent, sync); err != nil {
			return err
		}
	}
	if err := fsys.Mkdir(dir); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("vfs: mkdir %s: %w", dir, err)
	}
	if !sync {
		return nil
	}
	return fsys.SyncDir(parent)
}

// RemoveSynced removes path and fsyncs its directory; a missing path is not
// an error.
func RemoveSynced(fsys FS, path string) error {
	if err := fsys.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("vfs: remove %s: %w", path, err)
	}
	return fsys.SyncDir(filepath.Dir(path))
}
