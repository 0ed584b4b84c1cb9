// Package mmapfile holds the memory-mapped segment files of the CommitLog and
// the ConsumeQueues.
//
// A MappedFile is one fixed-size segment named by its 20-digit zero-padded start
// offset. It is created by vfs.CreateAllocated ("<name>.tmp", given all its
// blocks with fallocate, synced, renamed to its final name and the directory
// synced); only then is it mapped read-write (MAP_SHARED). Writing through a
// mapping whose blocks are not allocated faults (SIGBUS) when the disk is full
// and the Go runtime kills the process; allocating first turns a full disk into
// an error at creation. Where fallocate is unsupported the file is filled with
// zeros instead. Every file operation goes through the vfs.FS the Queue is
// opened with (QueueOptions.FS).
//
// A MappedFile tracks how far it is written (set by its single writer) and how
// far it is flushed. The writer either stores into the mapping (Tail) or
// writes through the descriptor (WriteTail, pwrite: the same page cache, which
// a sync of pages dirtied through a mapping is slow to write back on ext4),
// then publishes with SetWrote. Flush syncs the dirty range with msync(MS_SYNC) through its
// vfs.Mapping, returns its error and never retries it: after a failed sync the
// kernel may have dropped the dirty pages, so a retry could report success for
// data that is gone.
//
// Readers take a reference (Acquire/Release) for as long as they hold slices of
// the mapping, e.g. a pull response being written to a socket. Close and Destroy
// drop the owner's reference; the mapping is unmapped when the last reference
// goes, never under a reader. Destroy unlinks the file at once.
//
// A sparse segment (QueueOptions.Sparse, for ConsumeQueues) has its full
// length but disk blocks only where the writer reserved them (Reserve:
// fallocate ahead of the write position, then zeros written so the pages are
// cached); its creation syncs nothing, and cutting it writes nothing when its
// tail already reads as zeros.
//
// A Queue is a directory of segments: find by offset, last, get-or-create the
// next (optionally preallocated ahead by a background goroutine, started
// through a lifecycle.Group by Start and stopped by Close, like etcd's
// file_pipeline), truncate dirty files beyond an offset, delete the oldest
// files.
//
// Only Linux is supported; other systems build but every Create/Open fails.
package mmapfile
