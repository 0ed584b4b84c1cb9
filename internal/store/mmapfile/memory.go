package mmapfile

// TotalMemory is the machine's RAM in bytes, 0 if unknown.
func TotalMemory() int64 { return totalMemory() }
