package mmapfile

// TotalMemory is the machine's RAM in bytes, 0 if unknown.
func TotalMemory() int64 { return totalMemory() }

// DefaultMappedFiles is how many files of many small queues (ConsumeQueues)
// a process may keep mapped by default: a quarter of its open file limit,
// between 256 and 16,384, leaving the rest of the descriptors to sockets and
// the rest of vm.max_map_count (65,530 by default) to everything else.
func DefaultMappedFiles() int {
	return int(min(max(openFileLimit()/4, 256), 16384))
}
