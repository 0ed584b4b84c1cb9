package timer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"sync"

	"github.com/rocketgo/rocketgo/internal/vfs"
)

// SlotSize is the size of one wheel slot in the wheel file.
const SlotSize = 32

// wheelMagic starts the wheel file's header ("TMW1").
const wheelMagic uint32 = 0x544D5731

// wheelPage is the unit the wheel writes its changed slots in.
const wheelPage = vfs.PageSize

// Slot is one wheel slot: the records of the interval starting at TimeMs, as a chain in the log
// from Last back to First.
type Slot struct {
	// TimeMs is the start of the interval the slot holds now; 0 for a slot never used.
	TimeMs int64
	First  int64
	Last   int64
	// Num counts the slot's records.
	Num int32
}

// empty is what Get returns for a slot that holds another interval.
func empty(timeMs int64) Slot { return Slot{TimeMs: timeMs, First: NoPos, Last: NoPos} }

// Wheel is the ring of slots, kept in memory and written to its file page by page: Sync writes
// the pages that changed since the last Sync and fsyncs. Its size is fixed by the number of
// slots (32 bytes each), not by how many records they hold. It is safe for concurrent use.
type Wheel struct {
	f           vfs.File
	precisionMs int64
	n           int64

	mu    sync.RWMutex
	b     []byte // header slot, then n slots; REQUIRES mu
	dirty []bool // per wheelPage of b; REQUIRES mu
}

// OpenWheel opens the wheel file at path, or creates it with slots slots of precisionMs. An
// existing file made with another shape is refused: the slots would mean other intervals.
func OpenWheel(fsys vfs.FS, path string, slots, precisionMs int64) (*Wheel, error) {
	if slots <= 0 || precisionMs <= 0 {
		return nil, fmt.Errorf("timer: wheel of %d slots of %d ms", slots, precisionMs)
	}
	w := &Wheel{precisionMs: precisionMs, n: slots, b: make([]byte, (slots+1)*SlotSize)}
	w.dirty = make([]bool, (int64(len(w.b))+wheelPage-1)/wheelPage)
	f, err := fsys.OpenReadWrite(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return w.create(fsys, path)
	case err != nil:
		return nil, fmt.Errorf("timer: open wheel: %w", err)
	}
	w.f = f
	if err := w.load(path); err != nil {
		f.Close()
		return nil, err
	}
	return w, nil
}

// create writes a new wheel file: the header and empty slots, allocated and fsynced.
func (w *Wheel) create(fsys vfs.FS, path string) (*Wheel, error) {
	w.putHeader()
	for i := int64(0); i < w.n; i++ {
		w.putRaw(i, empty(0))
	}
	f, err := vfs.CreateAllocated(fsys, path, int64(len(w.b)))
	if err != nil {
		return nil, fmt.Errorf("timer: create wheel: %w", err)
	}
	w.f = f
	for i := range w.dirty {
		w.dirty[i] = true
	}
	if err := w.Sync(); err != nil {
		f.Close()
		return nil, err
	}
	return w, nil
}

func (w *Wheel) putHeader() {
	be := binary.BigEndian
	be.PutUint32(w.b[0:], wheelMagic)
	be.PutUint32(w.b[4:], 1)
	be.PutUint64(w.b[8:], uint64(w.precisionMs))
	be.PutUint64(w.b[16:], uint64(w.n))
}

// load reads the file and checks its header against the wheel's shape.
func (w *Wheel) load(path string) error {
	var h [SlotSize]byte
	if _, err := w.f.ReadAt(h[:], 0); err != nil {
		return fmt.Errorf("timer: read wheel %s: %w", path, err)
	}
	be := binary.BigEndian
	if be.Uint32(h[0:]) != wheelMagic {
		return fmt.Errorf("timer: %s is not a timer wheel of this broker", path)
	}
	prec, slots := int64(be.Uint64(h[8:])), int64(be.Uint64(h[16:]))
	if prec != w.precisionMs || slots != w.n {
		return fmt.Errorf("timer: wheel %s has %d slots of %d ms, configured %d of %d ms: "+
			"timerPrecisionMs and timerRollWindowSlot cannot change while timers are pending",
			path, slots, prec, w.n, w.precisionMs)
	}
	if n, err := w.f.ReadAt(w.b, 0); n != len(w.b) {
		return fmt.Errorf("timer: wheel %s: %d bytes, want %d: %v", path, n, len(w.b), err)
	}
	return nil
}

// index is the slot of the interval starting at timeMs.
func (w *Wheel) index(timeMs int64) int64 { return (timeMs / w.precisionMs) % w.n }

// Slots is the number of slots.
func (w *Wheel) Slots() int64 { return w.n }

// PrecisionMs is the length of a slot's interval.
func (w *Wheel) PrecisionMs() int64 { return w.precisionMs }

// Get returns the slot of the interval starting at timeMs (a multiple of the precision); an
// empty slot when its place holds another interval.
func (w *Wheel) Get(timeMs int64) Slot {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.getLocked(timeMs)
}

func (w *Wheel) getLocked(timeMs int64) Slot {
	s := w.raw(w.index(timeMs))
	if s.TimeMs != timeMs {
		return empty(timeMs)
	}
	return s
}

// Add links the record at pos into the slot of timeMs and returns the slot's previous last
// record (the record's prev). A slot that held another interval starts over.
func (w *Wheel) Add(timeMs, pos int64) (prev int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.addLocked(timeMs, pos)
}

func (w *Wheel) addLocked(timeMs, pos int64) (prev int64) {
	s := w.getLocked(timeMs)
	prev = s.Last
	if s.First == NoPos {
		s.First = pos
	}
	s.Last = pos
	s.Num++
	w.putRaw(w.index(timeMs), s)
	return prev
}

// Replay links the record at pos into its slot unless the slot already holds it (its last record
// is at pos or later): recovery replays records the wheel may or may not have seen.
func (w *Wheel) Replay(timeMs, pos int64) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.getLocked(timeMs).Last >= pos {
		return false
	}
	w.addLocked(timeMs, pos)
	return true
}

// Reset empties the slot of timeMs (recovery, when it points past the log's end).
func (w *Wheel) Reset(timeMs int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.putRaw(w.index(timeMs), empty(0))
}

// Each calls f for every slot holding an interval in [fromMs, fromMs+Slots×precision), in time
// order, with the read lock held.
func (w *Wheel) Each(fromMs int64, f func(Slot)) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	for i := int64(0); i < w.n; i++ {
		if s := w.getLocked(fromMs + i*w.precisionMs); s.First != NoPos {
			f(s)
		}
	}
}

func (w *Wheel) raw(i int64) Slot {
	b := w.b[(i+1)*SlotSize:]
	be := binary.BigEndian
	return Slot{TimeMs: int64(be.Uint64(b)), First: int64(be.Uint64(b[8:])), Last: int64(be.Uint64(b[16:])),
		Num: int32(be.Uint32(b[24:]))}
}

func (w *Wheel) putRaw(i int64, s Slot) {
	off := (i + 1) * SlotSize
	b := w.b[off:]
	be := binary.BigEndian
	be.PutUint64(b, uint64(s.TimeMs))
	be.PutUint64(b[8:], uint64(s.First))
	be.PutUint64(b[16:], uint64(s.Last))
	be.PutUint32(b[24:], uint32(s.Num))
	be.PutUint32(b[28:], 0)
	w.dirty[off/wheelPage] = true
}

// Sync writes the changed pages and fsyncs the file.
func (w *Wheel) Sync() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	wrote := false
	for p, d := range w.dirty {
		if !d {
			continue
		}
		off := int64(p) * wheelPage
		end := min(off+wheelPage, int64(len(w.b)))
		if _, err := w.f.WriteAt(w.b[off:end], off); err != nil {
			return fmt.Errorf("timer: write wheel: %w", err)
		}
		w.dirty[p], wrote = false, true
	}
	if !wrote {
		return nil
	}
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("timer: sync wheel: %w", err)
	}
	return nil
}

// Close closes the file without writing what changed since the last Sync.
func (w *Wheel) Close() error { return w.f.Close() }
