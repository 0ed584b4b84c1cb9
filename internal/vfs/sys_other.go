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
func punchHole(*os.File, int64, int64) error           { return ErrUnsupported }
func syncFS(*os.File) error                            { return errNotLinux }
func nextData(*os.File, int64) (int64, int64, error)   { return 0, 0, ErrUnsupported }
func diskUsage(string) (total, free uint64, err error) { return 0, 0, errNotLinux }
func lockFile(*os.File) error                          { return errNotLinux }
