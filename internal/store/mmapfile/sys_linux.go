//go:build linux

package mmapfile

import "golang.org/x/sys/unix"

// totalMemory is the machine's RAM in bytes, 0 if unknown.
func totalMemory() int64 {
	var si unix.Sysinfo_t
	if unix.Sysinfo(&si) != nil {
		return 0
	}
	return int64(si.Totalram) * int64(si.Unit)
}

// openFileLimit is the soft RLIMIT_NOFILE, 0 if unknown.
func openFileLimit() int64 {
	var rl unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &rl) != nil {
		return 0
	}
	return int64(min(rl.Cur, 1<<40))
}
