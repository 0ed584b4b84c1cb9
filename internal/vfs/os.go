package vfs

import (
	"fmt"
	"io"
	"os"
)

// Default is the production FS: the os package and system calls.
var Default FS = osFS{}

// osFS is the FS over the operating system.
type osFS struct{}

func (osFS) Create(name string) (File, error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	return osFile{f}, nil
}

func (osFS) Open(name string) (File, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	return osFile{f}, nil
}

func (osFS) OpenReadWrite(name string) (File, error) {
	f, err := os.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	return osFile{f}, nil
}

func (osFS) Remove(name string) error                   { return os.Remove(name) }
func (osFS) RemoveAll(name string) error                { return os.RemoveAll(name) }
func (osFS) Rename(oldname, newname string) error       { return os.Rename(oldname, newname) }
func (osFS) Mkdir(name string) error                    { return os.Mkdir(name, 0o755) }
func (osFS) ReadDir(name string) ([]os.DirEntry, error) { return os.ReadDir(name) }
func (osFS) Stat(name string) (os.FileInfo, error)      { return os.Stat(name) }

func (osFS) DiskUsage(path string) (total, free uint64, err error) { return diskUsage(path) }

func (osFS) SyncDir(name string) error {
	d, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("vfs: open dir %s: %w", name, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("vfs: sync dir %s: %w", name, err)
	}
	return nil
}

func (osFS) Lock(name string) (io.Closer, error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil // closing the descriptor drops the lock
}

// osFile is a File over an *os.File.
type osFile struct{ *os.File }

func (f osFile) Allocate(off, n int64) error  { return fallocate(f.File, off, n) }
func (f osFile) ZeroRange(off, n int64) error { return zeroRange(f.File, off, n) }
func (f osFile) PunchHole(off, n int64) error { return punchHole(f.File, off, n) }
func (f osFile) SyncFS() error                { return syncFS(f.File) }

func (f osFile) NextData(off int64) (start, end int64, err error) { return nextData(f.File, off) }

func (f osFile) Map(size int64) (Mapping, error) {
	b, err := mmap(f.File, size)
	if err != nil {
		return nil, err
	}
	return osMapping(b), nil
}

// osMapping is a Mapping made by mmap(2).
type osMapping []byte

func (m osMapping) Bytes() []byte           { return m }
func (m osMapping) Sync(off, n int64) error { return msync(m[off : off+n]) }
func (m osMapping) Unmap() error            { return munmap(m) }
