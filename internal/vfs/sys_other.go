//go:build !linux

package vfs

import (
	"errors"
	"os"
)

var errNotLinux = errors.New("vfs: only Linux is supported")

func mmap(*os.File, int64) ([]byte, error)             { return nil, errNotLinux }
func munmap([]byte) error                              { return errNotLinux }
func msync([]byte) error                               { return errNotLinux }
func fallocate(*os.File, int64, int64) error           { return ErrUnsupported }
func zeroRange(*os.File, int64, int64) error           { return ErrUnsupported }
func diskUsage(string) (total, free uint64, err error) { return 0, 0, errNotLinux }
func lockFile(*os.File) error                          { return errNotLinux }
