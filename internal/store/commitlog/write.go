package commitlog

import (
	"encoding/binary"
	"fmt"

	"github.com/rocketgo/rocketgo/internal/store/mmapfile"
	"github.com/rocketgo/rocketgo/internal/vfs"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// recordWriter puts records at the tail of a segment, in one of two ways. Under ASYNC_FLUSH it
// encodes them straight into the mapping: no system call per put. Under SYNC_FLUSH (viaFile) it
// encodes them into one reused buffer and writes that through the file descriptor
// (mmapfile.WriteTail): on ext4 a sync of pages dirtied through the mapping took 1-3 ms once tens
// of MiB of a segment were written, of pages written with pwrite 0.1-0.3 ms, and every SYNC_FLUSH
// put waits for one (docs/benchmarks.md, "Writing the CommitLog with pwrite"). It is owned by the
// put lock (CommitLog.mu).
type recordWriter struct {
	viaFile bool
	buf     []byte
	seal    [4]byte // the first record's totalSize, written last
}

// put has encode fill n bytes of whole records, then writes them at f's write position and
// publishes them. A fault of the mapping (SIGBUS) is returned as an error.
func (w *recordWriter) put(f *mmapfile.MappedFile, n int, encode func([]byte) error) error {
	if !w.viaFile {
		err := mmapfile.CatchFault(func() error { return encode(f.Tail()[:n]) })
		if err != nil {
			return err
		}
		f.SetWrote(f.Wrote() + int64(n))
		return nil
	}
	if cap(w.buf) < n {
		w.buf = make([]byte, n) // grows only for a put larger than any before
	}
	b := w.buf[:n]
	if err := encode(b); err != nil {
		return err
	}
	return w.writeSealed(f, b)
}

// writeSealed writes b through f's descriptor and publishes it. When b crosses a page boundary
// the first record's totalSize goes to the file last, in a write of its own: a pwrite is copied
// page by page and a process killed in the middle of one keeps the pages copied so far, so the
// log then ends in a zero totalSize, which recovery reads as the end of the data, never in a
// record with a torn tail. Within one page a pwrite is whole or absent.
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

// raw writes data, a byte range of another log (replication), at f's write position as far as
// it fits and publishes it; it returns the bytes written.
func (w *recordWriter) raw(f *mmapfile.MappedFile, data []byte) (int, error) {
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
