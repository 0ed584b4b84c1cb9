package index

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// fallocate reserves size bytes of disk for f, so that later stores through a mapping cannot
// fault for lack of space. It reports errAllocUnsupported where the file system cannot do it.
func fallocate(f *os.File, size int64) error {
	for {
		err := unix.Fallocate(int(f.Fd()), 0, 0, size)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EOPNOTSUPP), errors.Is(err, unix.ENOSYS):
			return errAllocUnsupported
		default:
			return err
		}
	}
}
