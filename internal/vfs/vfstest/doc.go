// Package vfstest is a vfs.FS for tests: it records every operation, fails
// chosen ones, and simulates a power loss.
//
// FS wraps the real disk under a root directory (a test's temp dir), not an
// in-memory tree, so that mappings are real mmap(2) mappings: stores through
// them reach the page cache that read(2) sees, a truncated file faults
// (SIGBUS) as it would in production, fallocate and sparse files behave as the
// kernel makes them, and the store's mmap code paths run unchanged. What the
// double adds is bookkeeping beside the real operations:
//
//   - Trace: one line per operation, paths relative to the root
//     ("create: commitlog/00000000000000000000.tmp",
//     "fallocate: commitlog/00000000000000000000.tmp 0 65536",
//     "rename: checkpoint.tmp -> checkpoint", "syncdir: ."). Directory
//     listings come back sorted, so a single-goroutine sequence of calls
//     always gives the same trace: golden traces (CompareGolden) compare it
//     with a file under testdata.
//   - Inject: a Rule fails the operations of a kind whose path matches (every
//     one, or only the n-th) with a chosen error such as ENOSPC or EIO, or runs
//     a function before them (a slow or gated disk). A failed operation is not
//     performed.
//   - PowerLoss: the double remembers, for every file the test changed, its
//     content as of its last fsync or msync, and for every directory its
//     entries as of its last directory fsync. PowerLoss writes only that into
//     a new directory and returns a new FS on it, for the store to be reopened
//     on: unsynced writes, unsynced renames and unsynced new files are gone.
//     Files and directories the double never saw change keep their content.
//     A File.SyncFS records everything tracked as durable (without calling
//     syncfs(2) on the real disk).
//
// The durable state is kept by inode, read back from the page cache with
// pread(2) after each real fsync/msync (so concurrent writers to a mapping are
// not a data race). Every FS method takes one lock, so a PowerLoss taken while
// the store runs sees one consistent cut of the operations.
package vfstest
