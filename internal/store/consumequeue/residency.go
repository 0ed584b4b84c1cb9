package consumequeue

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/rocketgo/rocketgo/internal/store/mmapfile"
)

// Residency caps the ConsumeQueue files that are open and mapped at once
// (each holds one descriptor and one mapping) across the queues that share
// it, so that a broker with tens of thousands of queues stays under the
// kernel's default vm.max_map_count (65,530) and descriptor limits. A queue's
// files are mapped while it is used; when the cap is passed, queues not used
// lately are closed (CLOCK: each queue has a use bit the sweep clears, and a
// queue whose bit is clear when the sweep comes back goes) and keep their
// positions in memory (mmapfile.QueueState); a later read or write maps them
// again, without listing or recovering anything. A queue busy with a writer
// or a flush when the sweep reaches it is skipped. Readers hold references on
// the files they read, so closing a queue never unmaps under them.
type Residency struct {
	max int // files; ≤ 0: no cap

	mu   sync.Mutex
	open int             // files mapped by the queues in ring; REQUIRES mu
	ring []*ConsumeQueue // queues with their files mapped; REQUIRES mu
	hand int             // REQUIRES mu

	closed atomic.Int64 // queues closed to make room
}

// NewResidency returns a cap of max mapped files (≤ 0: no cap).
func NewResidency(max int) *Residency { return &Residency{max: max} }

// Max is the cap (≤ 0: none).
func (r *Residency) Max() int { return r.max }

// Open is the number of ConsumeQueue files mapped now.
func (r *Residency) Open() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.open
}

// Closed is how many times a queue was closed to make room.
func (r *Residency) Closed() int64 { return r.closed.Load() }

// admit adds a queue whose files were just mapped. REQUIRES cq.mu.
func (r *Residency) admit(cq *ConsumeQueue, files int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	cq.slot = len(r.ring)
	r.ring = append(r.ring, cq)
	r.open += files
	r.shrinkLocked(cq)
}

// grow counts files a resident queue created (> 0) or removed (< 0).
// REQUIRES cq.mu.
func (r *Residency) grow(cq *ConsumeQueue, delta int) {
	if delta == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.open += delta
	if delta > 0 {
		r.shrinkLocked(cq)
	}
}

// leave removes a queue that is closing or closed to make room, with its
// files. REQUIRES cq.mu and r.mu.
func (r *Residency) leaveLocked(cq *ConsumeQueue, files int) {
	i := cq.slot
	if i < 0 {
		return
	}
	last := len(r.ring) - 1
	r.ring[i] = r.ring[last]
	r.ring[i].slot = i
	r.ring[last] = nil
	r.ring = r.ring[:last]
	cq.slot = -1
	r.open -= files
	if r.hand > last {
		r.hand = 0
	}
}

// leave is leaveLocked taking r.mu. REQUIRES cq.mu.
func (r *Residency) leave(cq *ConsumeQueue, files int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.leaveLocked(cq, files)
}

// shrinkLocked closes queues until the cap holds, never keep. Two sweeps at
// most: the first may only clear use bits. REQUIRES r.mu.
func (r *Residency) shrinkLocked(keep *ConsumeQueue) {
	for steps := 2 * len(r.ring); r.max > 0 && r.open > r.max && steps > 0 && len(r.ring) > 0; steps-- {
		if r.hand >= len(r.ring) {
			r.hand = 0
		}
		c := r.ring[r.hand]
		if c == keep || c.used.Swap(false) || !c.mu.TryLock() {
			r.hand++
			continue
		}
		if !c.closeToMakeRoomLocked(r) {
			r.hand++
		}
		c.mu.Unlock()
	}
}

// closeToMakeRoomLocked closes cq's files, keeping its state, unless a flush
// holds it. REQUIRES cq.mu and r.mu.
func (cq *ConsumeQueue) closeToMakeRoomLocked(r *Residency) bool {
	if !cq.res.TryLock() {
		return false
	}
	q := cq.q
	cq.st = q.State()
	cq.dirtyPhy = cq.firstUnflushedLocked(q)
	cq.q = nil
	cq.res.Unlock()
	r.leaveLocked(cq, len(cq.st.Starts))
	q.Close()
	r.closed.Add(1)
	return true
}

// resident returns the queue's files, mapping them again if they were closed
// to make room. REQUIRES cq.mu.
func (cq *ConsumeQueue) resident() (*mmapfile.Queue, error) {
	if q := cq.q; q != nil {
		cq.touch()
		return q, nil
	}
	q, err := mmapfile.Reopen(cq.dir, cq.fileSize, cq.st, cq.queueOptions())
	if err != nil {
		return nil, fmt.Errorf("consumequeue: %s/%d: %w", cq.topic, cq.queueID, err)
	}
	cq.res.Lock()
	cq.q, cq.st, cq.dirtyPhy = q, mmapfile.QueueState{}, noDirty
	cq.res.Unlock()
	cq.used.Store(true)
	if cq.residency != nil {
		cq.residency.admit(cq, q.Len())
	}
	return q, nil
}

// touch marks the queue used, for the CLOCK sweep.
func (cq *ConsumeQueue) touch() {
	if !cq.used.Load() {
		cq.used.Store(true)
	}
}

// Resident reports whether the queue's files are mapped now.
func (cq *ConsumeQueue) Resident() bool {
	cq.res.RLock()
	defer cq.res.RUnlock()
	return cq.q != nil
}
