// Package consumequeue is the per-topic-queue index of the CommitLog: one
// 20-byte entry per message,
//
//	off  size  field
//	  0     8  commitLogOffset  int64
//	  8     4  size             int32, the record's totalSize
//	 12     8  tagsCode         int64, Java hashCode of TAGS (delivery time for SCHEDULE_TOPIC_XXXX)
//
// entry N at byte N×20, in files of EntriesPerFile entries (300,000 = 6,000,000
// bytes by default) named by their 20-digit start byte offset under
// consumequeue/<topic>/<queueId>/.
//
// Put writes the entry for an explicit queue offset, so re-dispatching records
// after a crash is idempotent: an entry already present is skipped. A queue
// whose first entry is not at offset 0, or a gap in a queue, is filled with
// blank entries (0, Integer.MAX_VALUE, 0) as Java's fillPreBlank does, up to the
// end of the current file and from the start of the file of the new entry;
// files wholly inside a gap are not created, so every file but the last is full.
//
// Files are sparse: each has its full logical length, as Apache's broker
// requires of a ConsumeQueue file, but disk blocks only where entries are
// written, allocated a little ahead of the write position before the entry is
// stored through the mapping (a full disk is an error of Put, never a SIGBUS).
// Creating a file syncs nothing; the owner makes new files durable with a
// SyncFS and MarkSynced (FlushState says when one is needed).
//
// A Residency shared by the queues of a store caps how many files are mapped
// at once: queues not used lately are closed with their positions kept and
// mapped again by their next read or write. Load recovers a queue found at
// start-up by reading its files (pread) into that closed state.
//
// One goroutine (the store's dispatcher) writes a queue; readers take a
// reference on the file they read through Entries.
package consumequeue
