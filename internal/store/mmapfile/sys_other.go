//go:build !linux

package mmapfile

func totalMemory() int64 { return 0 }

func openFileLimit() int64 { return 0 }
