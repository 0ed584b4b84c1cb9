// Package commitlog is the append-only log every message is written to: a
// mmapfile.Queue of fixed-size segments holding message records back to back.
//
// Append encodes a record straight into the newest segment under one lock,
// assigning its physical offset, its queue offset (from the topic-queue offset
// table) and its store timestamp. When a record and an 8-byte BLANK marker do
// not fit in the rest of a segment, a BLANK (totalSize = remaining bytes, magic
// 0xCBD43194) closes it and the record goes to the next one. PREPARED and
// ROLLBACK transaction records get queue offset 0 and do not advance the table.
//
// Durability. With SyncFlush, a put waits for group commit: each put registers
// the end offset of its record(s); one goroutine syncs everything written and
// completes every waiter the sync covered, so concurrent puts share one sync; a
// put not durable within SyncFlushTimeout reports FlushDiskTimeout. With
// AsyncFlush a goroutine syncs every FlushInterval when at least
// FlushLeastPages pages are dirty, and everything every FlushThoroughInterval.
// A failed sync is never acknowledged, never retried and never advances the
// flushed offset: the log poisons itself (read-only) and every later put gets
// ServiceNotAvailable until restart.
//
// Recovery scans records from the start of a segment, validating magic, sizes,
// the physical offset field and (optionally) the body CRC, and truncates the log
// after the last valid record: the rest of that segment is zeroed and later
// segments deleted.
package commitlog
