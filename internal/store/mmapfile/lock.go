package mmapfile

import (
	"fmt"
	"os"
)

// TotalMemory is the machine's RAM in bytes, 0 if unknown.
func TotalMemory() int64 { return totalMemory() }

// FileLock is an exclusive lock on a file, held until Release.
type FileLock struct{ f *os.File }

// Lock creates path if needed and locks it exclusively without waiting; it
// fails when another process (or another open in this one) holds it.
func Lock(path string) (*FileLock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("mmapfile: open lock %s: %w", path, err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("mmapfile: lock %s (is another broker using this store?): %w", path, err)
	}
	return &FileLock{f: f}, nil
}

// Release unlocks and closes the lock file.
func (l *FileLock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close() // closing the descriptor drops the flock
	l.f = nil
	return err
}
