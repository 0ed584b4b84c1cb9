//go:build linux

package vfs

import (
	"errors"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

func mmap(f *os.File, size int64) ([]byte, error) {
	return unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
}

func munmap(b []byte) error { return unix.Munmap(b) }

// msync writes the dirty pages of b (page-aligned start) and waits for the device.
func msync(b []byte) error { return unix.Msync(b, unix.MS_SYNC) }

// unsupported maps the errors of a file system without the operation to
// ErrUnsupported.
func unsupported(err error) error {
	if errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.ENOSYS) {
		return ErrUnsupported
	}
	return err
}

// fallocate gives f blocks for [off, off+n).
func fallocate(f *os.File, off, n int64) error {
	for {
		err := unix.Fallocate(int(f.Fd()), 0, off, n)
		if err != unix.EINTR {
			return unsupported(err)
		}
	}
}

// zeroRange makes [off, off+n) read as zeros while keeping the blocks
// allocated: FALLOC_FL_ZERO_RANGE, or a punched hole allocated again.
func zeroRange(f *os.File, off, n int64) error {
	fd := int(f.Fd())
	err := unsupported(unix.Fallocate(fd, unix.FALLOC_FL_ZERO_RANGE|unix.FALLOC_FL_KEEP_SIZE, off, n))
	if !errors.Is(err, ErrUnsupported) {
		return err
	}
	if err := unsupported(unix.Fallocate(fd, unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, off, n)); err != nil {
		return err
	}
	return unix.Fallocate(fd, unix.FALLOC_FL_KEEP_SIZE, off, n)
}

// punchHole deallocates [off, off+n), keeping the size.
func punchHole(f *os.File, off, n int64) error {
	return unsupported(unix.Fallocate(int(f.Fd()), unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, off, n))
}

// syncFS is syncfs(2) on the file system holding f.
func syncFS(f *os.File) error {
	for {
		err := unix.Syncfs(int(f.Fd()))
		if err != unix.EINTR {
			return err
		}
	}
}

// nextData finds the data range at or after off with SEEK_DATA and SEEK_HOLE.
func nextData(f *os.File, off int64) (start, end int64, err error) {
	fd := int(f.Fd())
	start, err = unix.Seek(fd, off, unix.SEEK_DATA)
	if errors.Is(err, unix.ENXIO) {
		return 0, 0, io.EOF
	}
	if err != nil {
		return 0, 0, unsupported(err)
	}
	end, err = unix.Seek(fd, start, unix.SEEK_HOLE)
	if err != nil {
		return 0, 0, unsupported(err)
	}
	return start, end, nil
}

// diskUsage returns df's view of the file system holding path: used blocks
// plus the blocks available to unprivileged users, and the latter.
func diskUsage(path string) (total, free uint64, err error) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return 0, 0, err
	}
	bs := uint64(st.Bsize)
	used := (st.Blocks - min(st.Bfree, st.Blocks)) * bs
	return used + st.Bavail*bs, st.Bavail * bs, nil
}

// lockFile takes an exclusive, non-blocking flock on f.
func lockFile(f *os.File) error { return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) }
