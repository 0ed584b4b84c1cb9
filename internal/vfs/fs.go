package vfs

import (
	"errors"
	"io"
	"os"
)

// ErrUnsupported reports an operation the file system cannot do (fallocate
// on a file system without it). Callers fall back (Allocate writes zeros).
var ErrUnsupported = errors.ErrUnsupported

// FS is a file system. Paths are the caller's (absolute or relative to the
// working directory); implementations do not rewrite them.
type FS interface {
	// Create creates name, or truncates it if it exists, open for reading and
	// writing.
	Create(name string) (File, error)
	// Open opens an existing file read-only.
	Open(name string) (File, error)
	// OpenReadWrite opens an existing file for reading and writing.
	OpenReadWrite(name string) (File, error)
	// Remove removes a file or an empty directory.
	Remove(name string) error
	// RemoveAll removes name and everything under it; a missing name is not
	// an error.
	RemoveAll(name string) error
	// Rename renames oldname to newname, replacing newname if it exists.
	Rename(oldname, newname string) error
	// Mkdir creates one directory; it fails if name exists.
	Mkdir(name string) error
	// ReadDir lists a directory, sorted by name.
	ReadDir(name string) ([]os.DirEntry, error)
	// Stat describes a file or directory.
	Stat(name string) (os.FileInfo, error)
	// SyncDir fsyncs a directory, making the entries created, renamed or
	// removed in it durable.
	SyncDir(name string) error
	// Lock creates name if needed and takes an exclusive lock on it without
	// waiting; Close releases it.
	Lock(name string) (io.Closer, error)
	// DiskUsage returns the size and the free bytes of the file system holding
	// path as df counts them: free is what an unprivileged process may still
	// allocate, total is that plus what is in use.
	DiskUsage(path string) (total, free uint64, err error)
}

// File is an open file.
type File interface {
	io.Reader
	io.ReaderAt
	io.Writer
	io.WriterAt
	io.Closer
	// Name is the path the file was opened with.
	Name() string
	// Stat describes the file.
	Stat() (os.FileInfo, error)
	// Sync makes the file's content and size durable (fsync), including pages
	// written through a mapping.
	Sync() error
	// Truncate changes the file's size.
	Truncate(size int64) error
	// Allocate gives [off, off+n) disk blocks, growing the file if needed
	// (fallocate mode 0). It reports ErrUnsupported where the file system
	// cannot; see the package function Allocate for the fallback.
	Allocate(off, n int64) error
	// ZeroRange makes [off, off+n) read as zeros, keeping its blocks allocated
	// and the size unchanged. It reports ErrUnsupported where the file system
	// cannot.
	ZeroRange(off, n int64) error
	// Map maps the file's first size bytes shared and read-write. The mapping
	// stays valid after the file is closed, until Unmap.
	Map(size int64) (Mapping, error)
	// PunchHole gives back the blocks of [off, off+n): the range reads as
	// zeros and takes no disk space; the size is unchanged. It reports
	// ErrUnsupported where the file system cannot.
	PunchHole(off, n int64) error
	// NextData returns the first range [start, end) at or after off that may
	// hold data (lseek SEEK_DATA, then SEEK_HOLE): holes before start read as
	// zeros. It returns io.EOF when nothing but holes follows off, and
	// ErrUnsupported where the file system cannot tell (then every byte may
	// be data). It moves the offset Read and Write use.
	NextData(off int64) (start, end int64, err error)
	// SyncFS makes everything written to the file system holding the file
	// durable: every file's data and metadata and every directory (syncfs).
	// It reports a writeback error of any file of that file system that
	// happened since this File was opened.
	SyncFS() error
}

// Mapping is a shared, read-write memory map of a file.
type Mapping interface {
	// Bytes is the mapped memory. Stores to it reach the file's page cache;
	// they are durable after Sync (or the file's Sync).
	Bytes() []byte
	// Sync writes the dirty pages of [off, off+n) and waits for the device
	// (msync MS_SYNC). off must be a multiple of the page size.
	Sync(off, n int64) error
	// Unmap releases the mapping; Bytes must not be used afterwards.
	Unmap() error
}

// PageSize is the unit Mapping.Sync ranges are aligned to.
const PageSize = 4096
