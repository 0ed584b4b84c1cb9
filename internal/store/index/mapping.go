package index

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"

	"github.com/rocketgo/rocketgo/internal/vfs"
)

// createMapped creates path on fsys (it must not exist) with every one of its size bytes
// allocated (vfs.CreateAllocated: a temp file, allocated, synced, renamed, the directory
// synced) and maps it read-write. A full disk is an error here, never a SIGBUS later. On error
// nothing is left behind.
func createMapped(fsys vfs.FS, path string, size int64) (vfs.Mapping, error) {
	if _, err := fsys.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("index: create %s: %w", path, errors.Join(fs.ErrExist, err))
	}
	f, err := vfs.CreateAllocated(fsys, path, size)
	if err != nil {
		_ = fsys.Remove(path)
		return nil, fmt.Errorf("index: preallocate %s (%d bytes): %w", path, size, err)
	}
	m, err := f.Map(size)
	if err != nil {
		err = fmt.Errorf("index: mmap %s: %w", path, err)
	}
	if cerr := f.Close(); err == nil && cerr != nil {
		_ = m.Unmap()
		err = fmt.Errorf("index: close %s: %w", path, cerr)
	}
	if err != nil {
		_ = fsys.Remove(path)
		return nil, err
	}
	return m, nil
}

// openMapped maps an existing file of exactly size bytes read-write. When reserveSpace is set
// it first allocates any holes (a file written by Java may be sparse); sealed reports that this
// failed for lack of space, in which case the file must not be written through the mapping.
func openMapped(fsys vfs.FS, path string, size int64, reserveSpace bool) (m vfs.Mapping, sealed bool, err error) {
	f, err := fsys.OpenReadWrite(path)
	if err != nil {
		return nil, false, fmt.Errorf("index: open %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, false, fmt.Errorf("index: stat %s: %w", path, err)
	}
	if st.Size() != size {
		return nil, false, fmt.Errorf("%w: %s is %d bytes, the layout needs %d", ErrSizeMismatch, path, st.Size(), size)
	}
	if reserveSpace {
		switch err := f.Allocate(0, size); {
		case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
			sealed = true
		case err != nil && !errors.Is(err, vfs.ErrUnsupported):
			return nil, false, fmt.Errorf("index: preallocate %s: %w", path, err)
		}
	}
	m, err = f.Map(size)
	if err != nil {
		return nil, false, fmt.Errorf("index: mmap %s: %w", path, err)
	}
	return m, sealed, nil
}

// memMapping is a Mapping over ordinary memory, for an IndexFile without a file (tests and
// fuzzing): Sync and Unmap do nothing.
type memMapping []byte

func (m memMapping) Bytes() []byte         { return m }
func (memMapping) Sync(int64, int64) error { return nil }
func (memMapping) Unmap() error            { return nil }
