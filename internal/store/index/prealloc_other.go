//go:build unix && !linux

package index

import "os"

// fallocate is Linux-only; elsewhere files are filled with zeros instead.
func fallocate(*os.File, int64) error { return errAllocUnsupported }
