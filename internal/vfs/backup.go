package vfs

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sync"
)

// BakSuffix is appended to a file's name for its previous version.
const BakSuffix = ".bak"

// ErrNotFound is returned by ReadWithBackup when neither the file nor its
// backup exists (or the file is empty and has no backup).
var ErrNotFound = errors.New("vfs: not found")

var errEmpty = errors.New("empty file")

// WriteWithBackup replaces path with data atomically (WriteFile), first
// copying its current content, if any, to path.bak the same way. The
// directory is created if needed. A crash at any point leaves path holding the
// old or the new content and path.bak a complete earlier version.
func WriteWithBackup(fsys FS, path string, data []byte) error {
	if err := MkdirAll(fsys, filepath.Dir(path)); err != nil {
		return err
	}
	old, err := ReadFile(fsys, path)
	switch {
	case err == nil && len(old) > 0:
		if err := WriteFile(fsys, path+BakSuffix, old); err != nil {
			return err
		}
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("vfs: read %s: %w", path, err)
	}
	return WriteFile(fsys, path, data)
}

// ReadWithBackup returns the content of path, or of path.bak when path is
// missing, empty or refused by decode. decode is called with the content of
// whichever file is tried and should fully decode it (so that the caller keeps
// the result of the successful call); nil accepts anything. It returns
// ErrNotFound when neither file exists, and an error naming both files when
// neither decodes.
func ReadWithBackup(fsys FS, path string, decode func([]byte) error) (data []byte, fromBak bool, err error) {
	if decode == nil {
		decode = func([]byte) error { return nil }
	}
	main, mainErr := tryRead(fsys, path, decode)
	if mainErr == nil {
		return main, false, nil
	}
	bak, bakErr := tryRead(fsys, path+BakSuffix, decode)
	if bakErr == nil {
		return bak, true, nil
	}
	if errors.Is(mainErr, fs.ErrNotExist) && errors.Is(bakErr, fs.ErrNotExist) {
		return nil, false, fmt.Errorf("%w: %s", ErrNotFound, path)
	}
	if errors.Is(mainErr, errEmpty) && (errors.Is(bakErr, fs.ErrNotExist) || errors.Is(bakErr, errEmpty)) {
		return nil, false, fmt.Errorf("%w: %s is empty", ErrNotFound, path)
	}
	return nil, false, fmt.Errorf("vfs: load %s: %w; backup: %w", path, mainErr, bakErr)
}

func tryRead(fsys FS, path string, decode func([]byte) error) ([]byte, error) {
	data, err := ReadFile(fsys, path)
	if err != nil {
		return nil, err
	}
	if len(data) == 0 {
		return nil, errEmpty
	}
	if err := decode(data); err != nil {
		return nil, fmt.Errorf("decode %s: %w", path, err)
	}
	return data, nil
}

// Persister writes successive snapshots of one file with WriteWithBackup.
// Owners take a snapshot and a sequence number under their own lock, release
// it, then call Write, so readers are never blocked by the fsync; Persister
// drops a snapshot older than one already written, so concurrent changes never
// leave an older version on disk.
type Persister struct {
	fs      FS
	path    string
	mu      sync.Mutex
	written uint64 // REQUIRES mu
}

// NewPersister returns a Persister for path on fsys (Default when nil).
func NewPersister(fsys FS, path string) *Persister {
	if fsys == nil {
		fsys = Default
	}
	return &Persister{fs: fsys, path: path}
}

// Path is the file the Persister writes.
func (p *Persister) Path() string { return p.path }

// FS is the file system the Persister writes to.
func (p *Persister) FS() FS { return p.fs }

// Write writes data (snapshot number seq) unless a later snapshot has been
// written already.
func (p *Persister) Write(data []byte, seq uint64) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if seq <= p.written {
		return nil
	}
	if err := WriteWithBackup(p.fs, p.path, data); err != nil {
		return err
	}
	p.written = seq
	return nil
}
