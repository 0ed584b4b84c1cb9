// Package store is the broker's message store: a CommitLog every message is
// appended to, a ConsumeQueue per topic queue indexing it, an optional
// IndexFile service for lookups by key, a dispatcher that feeds the queues and
// the index from the log, a checkpoint, and crash recovery.
//
// Lifecycle: Open (recover, then write the abort file) → Start (flush,
// dispatch and statistics goroutines) → Close (numbered steps in its comment).
//
// Puts are encoded once straight into the mapped CommitLog segment; pulls are
// served as slices of the mapped segments, held by references until
// GetResult.Release. Under SYNC_FLUSH a put returns after group commit made it
// durable, and the dispatcher only follows the flushed offset, so no pull ever
// returns a record that a crash could lose.
//
// Recovery. The abort file exists while the store is open; finding it at Open
// means the last run did not close cleanly. Clean: the last three CommitLog
// segments are scanned for the end of the data. Abnormal: the scan starts at the
// segment holding the checkpointed flushed offset and validates every record
// (magic, sizes, physical offset, topic, body CRC when CheckCRCOnRecover),
// cutting a torn or corrupt tail. Then every ConsumeQueue is cut back so that
// no entry points past the end of the log, records from the checkpointed
// dispatch offset on are dispatched again (idempotently), queues found missing
// entries are rebuilt from the log, and the topic-queue offset table is rebuilt
// from the ConsumeQueues. The checkpoint advances with every ConsumeQueue flush
// that leaves the queues durable further, so a crash re-reads little.
//
// Many queues. ConsumeQueue files are sparse and grow as written; at most
// MaxMappedConsumeQueueFiles of them are mapped at once (the rest closed,
// their positions in memory); at Open they are read, not mapped, on several
// goroutines; and a flush of many of them is one syncfs instead of an msync
// each (queues.go, logics.go, docs/durability.md).
//
// Cleanup (clean.go). A clean service deletes expired CommitLog segments at
// DeleteWhen hours or when the disk fills, forcibly past
// DiskSpaceCleanForciblyRatio, then the ConsumeQueue and index files below the
// new min offset; past DiskSpaceWarningLevelRatio puts are refused until space
// returns. Deleted topics leave tombstones so their records are never
// dispatched again.
//
// The on-disk formats are drawn in docs/storage-format.md; what each flush
// mode promises, in docs/durability.md.
package store
