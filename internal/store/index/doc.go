// Package index implements RocketMQ's IndexFile: a hash index from message keys to commitlog
// offsets, byte-compatible with Apache RocketMQ 4.9 (store/index/IndexFile.java,
// IndexHeader.java, IndexService.java), so that index files move between a Java broker and
// ours unchanged.
//
// # Files
//
// The files live in the store's index/ directory, named by creation time in local time,
// yyyyMMddHHmmssSSS (e.g. 20240131235959042); names sort in creation order. Only the newest file
// is written; the others are full. Every file is created by vfs.CreateAllocated (as <name>.tmp,
// preallocated with fallocate or zeros where that is unsupported, fsynced, renamed, the directory
// fsynced) before it is mapped, so a full disk is an error, never a SIGBUS; a <name>.tmp left by a
// crash is removed at Open. Every file operation goes through Options.FS.
//
// # Layout
//
// All integers are big-endian. With the defaults (5,000,000 slots, 20,000,000 entries) a file
// is 420,000,040 bytes.
//
//	offset                          size
//	0                               40          header
//	40                              slots×4     hash slots: int32 each
//	40 + slots×4                    entries×20  entries: entry 0 is never used
//
//	header (40 bytes)
//	 0       8       16      24      32  36  40
//	+-------+-------+-------+-------+---+---+
//	| begin | end   | begin | end   |hsc|cnt|
//	| time  | time  | phy   | phy   |   |   |
//	+-------+-------+-------+-------+---+---+
//	begin/end time  int64  storeTimestamp (ms) of the first/newest entry
//	begin/end phy   int64  commitlog offset of the first/newest entry
//	hsc             int32  hashSlotCount: Java counts every put, not distinct slots
//	cnt             int32  indexCount: next entry number; starts at 1 (Java leaves 0 on disk
//	                       until the first put; both read as 1)
//
//	slot i (4 bytes) at 40 + i×4
//	+-------+
//	| entry |  int32  newest entry number whose keyHash % slots == i; 0 = empty
//	+-------+
//
//	entry n (20 bytes) at 40 + slots×4 + n×20, for 1 ≤ n < indexCount
//	 0     4             12    16    20
//	+-----+-------------+-----+-----+
//	|hash | phyOffset   |tdiff|prev |
//	+-----+-------------+-----+-----+
//	hash       int32  abs(Java String.hashCode(key)); 0 for Integer.MIN_VALUE
//	phyOffset  int64  commitlog offset of the message
//	tdiff      int32  (storeTimestamp − header begin time) / 1000, clamped to [0, MaxInt32]
//	prev       int32  previous entry in this slot's chain (always < n); 0 ends the chain
//
// The key of a message is topic + "#" + k for its UNIQ_KEY and for each space-separated
// element k of its KEYS property; rollback records are not indexed. Keys with equal hashes, and
// hashes in the same slot, share one chain; a lookup walks it newest first and keeps the
// entries whose hash equals the key's and whose time begin + tdiff×1000 lies in the query's
// range, so callers must still compare the keys of the messages they read.
//
// # Layers
//
// codec.go holds pure encoders and decoders (Header, Entry, slots, Layout arithmetic) and
// hash.go the Java string hash; IndexFile (file.go) maps one file; Service (service.go) is the
// store's index over all files: BuildIndex from the dispatcher, Query from request handlers,
// Flush, DeleteExpired and Truncate for cleanup and recovery.
package index
