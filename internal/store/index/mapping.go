package index

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// errAllocUnsupported means the file system cannot preallocate; the caller writes zeros instead.
var errAllocUnsupported = errors.New("index: fallocate not supported")

// allocFunc reserves size bytes for a file. It is a parameter so tests can take the zero-fill
// path or simulate a full disk.
type allocFunc func(f *os.File, size int64) error

// zeroChunk is the write size of the zero-fill fallback.
const zeroChunk = 1 << 20

// reserve makes every byte of f's first size bytes allocated on disk: fallocate, or writing
// zeros where that is unsupported. A full disk is an error here, never a SIGBUS later.
func reserve(f *os.File, size int64, alloc allocFunc) error {
	err := alloc(f, size)
	if !errors.Is(err, errAllocUnsupported) {
		return err
	}
	zeros := make([]byte, zeroChunk)
	for off := int64(0); off < size; off += zeroChunk {
		n := min(size-off, zeroChunk)
		if _, err := f.WriteAt(zeros[:n], off); err != nil {
			return err
		}
	}
	return nil
}

// createMapped creates path (which must not exist), reserves size bytes and maps them
// read-write. The parent directory is synced so the new name survives a crash. On error
// nothing is left behind.
func createMapped(path string, size int64, alloc allocFunc) (data []byte, err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("index: create %s: %w", path, err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("index: close %s: %w", path, cerr)
		}
		if err != nil {
			if data != nil {
				_ = unix.Munmap(data)
				data = nil
			}
			_ = os.Remove(path)
		}
	}()
	if err := reserve(f, size, alloc); err != nil {
		return nil, fmt.Errorf("index: preallocate %s (%d bytes): %w", path, size, err)
	}
	data, err = mapFile(f, size)
	if err != nil {
		return nil, fmt.Errorf("index: mmap %s: %w", path, err)
	}
	if err := syncDir(filepath.Dir(path)); err != nil {
		return data, err
	}
	return data, nil
}

// openMapped maps an existing file of exactly size bytes read-write. When reserveSpace is set
// it first allocates any holes (a file written by Java may be sparse); sealed reports that this
// failed for lack of space, in which case the file must not be written through the mapping.
func openMapped(path string, size int64, reserveSpace bool, alloc allocFunc) (data []byte, sealed bool, err error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
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
		switch err := alloc(f, size); {
		case errors.Is(err, unix.ENOSPC), errors.Is(err, unix.EDQUOT):
			sealed = true
		case err != nil && !errors.Is(err, errAllocUnsupported):
			return nil, false, fmt.Errorf("index: preallocate %s: %w", path, err)
		}
	}
	data, err = mapFile(f, size)
	if err != nil {
		return nil, false, fmt.Errorf("index: mmap %s: %w", path, err)
	}
	return data, sealed, nil
}

func mapFile(f *os.File, size int64) ([]byte, error) {
	return unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
}

func msync(data []byte) error  { return unix.Msync(data, unix.MS_SYNC) }
func munmap(data []byte) error { return unix.Munmap(data) }

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("index: open dir %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("index: sync dir %s: %w", dir, err)
	}
	return nil
}
