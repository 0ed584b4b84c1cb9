//go:build !linux

package mmapfile

import (
	"errors"
	"os"
)

var errNotLinux = errors.New("mmapfile: only Linux is supported")

func mmap(*os.File, int64) ([]byte, error)             { return nil, errNotLinux }
func munmap([]byte) error                              { return errNotLinux }
func msync([]byte) error                               { return errNotLinux }
func preallocate(*os.File, int64) error                { return errUnsupported }
func zeroRange(*os.File, int64, int64) error           { return errUnsupported }
func diskUsage(string) (total, free uint64, err error) { return 0, 0, errNotLinux }

func totalMemory() int64      { return 0 }
func lockFile(*os.File) error { return errNotLinux }
