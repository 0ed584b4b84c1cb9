package commitlog

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/rocketgo/rocketgo/internal/store/mmapfile"
	"github.com/rocketgo/rocketgo/internal/vfs"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// maxPending is how many bytes of records a SYNC_FLUSH log keeps in memory before a put writes
// them to the file itself rather than leaving that to the next sync.
const maxPending = 4 << 20

// recordWriter puts records at the tail of the last segment, in one of two ways.
//
// Under ASYNC_FLUSH it encodes them straight into the mapping: no system call per put.
//
// Under SYNC_FLUSH (viaFile) it encodes them into a pending buffer, and the group commit writes
// the buffer to the file through the descriptor (pwrite, mmapfile.WriteTail) just before it syncs:
// one write per sync rather than one per put. Nothing reads what is pending: under SYNC_FLUSH
// readers stop at the flushed offset (ReadableOffset), and segment reads stop at what the file
// holds (MappedFile.Wrote). Writing with pwrite rather than through the mapping is what makes
// the sync cheap: on ext4 a sync of pages dirtied through a mapping took 1-3 ms once tens of MiB
// of a segment were written, of pages written with pwrite 0.1-0.3 ms (docs/benchmarks.md,
// "Writing the CommitLog with pwrite").
//
// It is owned by the put lock (CommitLog.mu).
type recordWriter struct {
	viaFile bool
	pending []byte               // viaFile: records for seg not written to the file yet
	seg     *mmapfile.MappedFile // the segment pending belongs to
	lastTS  int64                // store time of the newest pending record
	seal    [4]byte              // the first pending record's totalSize, written last
}

// end is the write position in f counting what is pending.
func (w *recordWriter) end(f *mmapfile.MappedFile) int64 {
	if w.seg == f {
		return f.Wrote() + int64(len(w.pending))
	}
	return f.Wrote()
}

// room is how many bytes still fit in f.
func (w *recordWriter) room(f *mmapfile.MappedFile) int64 { return f.Size() - w.end(f) }

// put has encode fill n bytes of whole records stored at ts, to go at f's write position. Through
// the mapping they are published at once; through the file they are pending until drain. A fault
// of the mapping (SIGBUS) is returned as an error.
func (w *recordWriter) put(f *mmapfile.MappedFile, n int, ts int64, encode func([]byte) error) error {
	if !w.viaFile {
		err := mmapfile.CatchFault(func() error { return encode(f.Tail()[:n]) })
		if err != nil {
			return err
		}
		f.SetWrote(f.Wrote() + int64(n))
		f.LastStoreTimestamp.Store(ts)
		return nil
	}
	if w.seg != f || len(w.pending)+n > maxPending {
		if err := w.drain(); err != nil {
			return err
		}
		w.seg = f
	}
	start := len(w.pending)
	w.pending = slices.Grow(w.pending, n)[:start+n] // grows only past every earlier high mark
	if err := encode(w.pending[start:]); err != nil {
		w.pending = w.pending[:start]
		return err
	}
	w.lastTS = ts
	return nil
}

// drain writes the pending records to their segment and publishes them there.
func (w *recordWriter) drain() error {
	if len(w.pending) == 0 {
		return nil
	}
	if err := w.writeSealed(w.seg, w.pending); err != nil {
		return err
	}
	w.seg.LastStoreTimestamp.Store(w.lastTS)
	w.pending = w.pending[:0]
	return nil
}

// writeSealed writes b, whole records, through f's descriptor at its write position and
// publishes them. When b crosses a page boundary the first record's totalSize goes to the file
// last, in a write of its own: a pwrite is copied page by page and a process killed in the middle
// of one keeps the pages copied so far, so the log then ends in a zero totalSize (recovery stops
// there), never in a record with a torn tail. Within one page a pwrite is whole or absent.
func (w *recordWriter) writeSealed(f *mmapfile.MappedFile, b []byte) error {
	pos := f.Wrote()
	if pos/vfs.PageSize == (pos+int64(len(b))-1)/vfs.PageSize {
		if err := f.WriteTail(b); err != nil {
			return err
		}
		f.SetWrote(pos + int64(len(b)))
		return nil
	}
	size := w.seal[:]
	copy(size, b[message.PosTotalSize:])
	binary.BigEndian.PutUint32(b[message.PosTotalSize:], 0)
	if err := f.WriteTail(b); err != nil {
		return err
	}
	if err := f.WriteTail(size); err != nil {
		return fmt.Errorf("seal: %w", err)
	}
	f.SetWrote(pos + int64(len(b)))
	return nil
}

// closeSegment fills the rest of f with a BLANK (when 8 bytes are left) and marks it full,
// writing what is pending first.
func (w *recordWriter) closeSegment(f *mmapfile.MappedFile) error {
	if rest := w.room(f); rest >= message.BlankMinLen {
		err := w.put(f, message.BlankMinLen, f.LastStoreTimestamp.Load(), func(b []byte) error {
			message.EncodeBlank(b, int(rest))
			return nil
		})
		if err != nil {
			return err
		}
	}
	if err := w.drain(); err != nil {
		return err
	}
	f.SetWrote(f.Size())
	return nil
}

// raw writes data, a byte range of another log (replication), at f's write position as far as
// it fits and publishes it; it returns the bytes written.
func (w *recordWriter) raw(f *mmapfile.MappedFile, data []byte) (int, error) {
	if err := w.drain(); err != nil {
		return 0, err
	}
	n := min(len(data), len(f.Tail()))
	if w.viaFile {
		if err := f.WriteTail(data[:n]); err != nil {
			return 0, err
		}
	} else if err := mmapfile.CatchFault(func() error { copy(f.Tail(), data[:n]); return nil }); err != nil {
		return 0, err
	}
	f.SetWrote(f.Wrote() + int64(n))
	return n, nil
}
