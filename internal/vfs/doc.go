// Package vfs is the seam between the store (and the config files) and the
// file system, and the durable-file helpers built on it.
//
// FS and File are the operations the store performs on files and directories:
// create, open, read, write, stat, fsync, fallocate, zero a range, punch a
// hole, find the next data range, truncate, memory-map (Mapping: msync,
// munmap), rename, remove, mkdir, read a directory, fsync a directory, sync a
// whole file system, take a lock, measure the disk. Default is the production
// implementation over the os package and golang.org/x/sys/unix; package
// vfstest wraps it to record, fail and drop operations in tests. The seam costs
// one interface call per file operation and nothing per message: a mapping's
// bytes are an ordinary slice, read and written directly.
//
// The helpers are the only place the durable-file protocols are written:
//
//   - WriteFile replaces a file atomically: write <file>.tmp, fsync it, rename
//     it over <file>, fsync the directory. A crash leaves the old or the new
//     content, never a mix.
//   - CreateAllocated creates a file whose blocks are all allocated
//     (fallocate, or zeros where the file system cannot), through the same
//     temp-fsync-rename-fsync steps, so that a full disk is an error at
//     creation and never a SIGBUS when a mapping is written later.
//   - CreateSparse creates a file of its full length with only its first
//     blocks allocated and syncs nothing (ConsumeQueue files: the owner makes
//     many of them durable with one SyncFS).
//   - MkdirAll creates the missing directories of a path and fsyncs the parent
//     of each, so a new directory survives a power loss; MkdirAllNoSync leaves
//     that to a later SyncFS.
//   - WriteWithBackup and ReadWithBackup keep the previous version of a file as
//     <file>.bak and fall back to it, as Java's ConfigManager does; Persister
//     writes successive snapshots of one file, dropping stale ones.
//
// The package knows nothing of RocketMQ. It imports only the standard library
// and golang.org/x/sys/unix.
package vfs
