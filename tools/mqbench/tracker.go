package mqbench

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// msgPos is where the broker stored a message: queue id, queue offset and
// CommitLog offset (phy < 0 when unknown).
type msgPos struct {
	phy int64
	off int64
	q   int32
	src uint8 // posNone, or who told: the send's answer or a pulled record
}

const (
	posNone uint8 = iota
	posAcked
	posRead
)

// tracker remembers, per sequence number, whether the broker acknowledged
// the send, how many times a consumer received the message, and where the
// send's answer said it was stored, to check against the pulled record.
type tracker struct {
	mu    sync.Mutex
	state []uint16 // bit 0: acknowledged; bits 1..15: times received (saturating)
	pos   []msgPos
	// arrived counts sequence numbers both acknowledged and received, in
	// whichever order the two happened.
	arrived        atomic.Int64
	misplaced      int64
	firstMisplaced string
}

const (
	stateAcked    = 1
	stateRecvUnit = 2
	stateRecvMax  = 0xFFFF &^ 1
)

func (t *tracker) grow(n uint64) {
	if n <= uint64(len(t.state)) {
		return
	}
	if n <= uint64(cap(t.state)) {
		t.state = t.state[:n] // the tails were zeroed by make
		t.pos = t.pos[:n]
		return
	}
	c := max(n, uint64(2*cap(t.state)), 1024)
	s := make([]uint16, n, c)
	copy(s, t.state)
	t.state = s
	p := make([]msgPos, n, c)
	copy(p, t.pos)
	t.pos = p
}

// acked marks n consecutive sequence numbers from first as acknowledged;
// at, if not nil, holds where the answer said each one was stored.
func (t *tracker) acked(first uint64, n int, at []msgPos) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.grow(first + uint64(n))
	for i := range uint64(n) {
		seq := first + i
		st := t.state[seq]
		if st&stateAcked == 0 && st >= stateRecvUnit {
			t.arrived.Add(1)
		}
		t.state[seq] = st | stateAcked
		if at != nil {
			t.place(seq, at[i], posAcked)
		}
	}
}

// maxAhead bounds how far past the highest sequence number seen so far a received key may point
// before it is taken for a foreign key: a corrupt or hostile key must not make the tracker grow
// without limit.
const maxAhead = 1 << 24

// plausible reports whether seq is close enough to the numbers seen so far to be tracked.
func (t *tracker) plausible(seq uint64) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return seq < uint64(len(t.state))+maxAhead
}

// received notes one delivery of each sequence number in seqs, found at
// the positions in at.
func (t *tracker) received(seqs []uint64, at []msgPos) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i, seq := range seqs {
		t.grow(seq + 1)
		st := t.state[seq]
		if st == stateAcked {
			t.arrived.Add(1)
		}
		if st&stateRecvMax != stateRecvMax {
			t.state[seq] = st + stateRecvUnit
		}
		if at != nil {
			t.place(seq, at[i], posRead)
		}
	}
}

// place compares a position with what the other side said, or keeps it
// until the other side says.
func (t *tracker) place(seq uint64, p msgPos, src uint8) {
	p.src = src
	known := t.pos[seq]
	switch {
	case known.src == posNone:
		t.pos[seq] = p
	case known.src != src || src == posRead:
		if known.q != p.q || known.off != p.off || known.phy >= 0 && p.phy >= 0 && known.phy != p.phy {
			t.misplaced++
			if t.firstMisplaced == "" {
				a, r := known, p
				if known.src == posRead {
					a, r = p, known
				}
				t.firstMisplaced = fmt.Sprintf("message %d: send answer said queue %d offset %d commitlog %d; pulled record has queue %d offset %d commitlog %d",
					seq, a.q, a.off, a.phy, r.q, r.off, r.phy)
			}
		}
		if src == posAcked {
			t.pos[seq] = p
		}
	}
}

// VerifyReport compares what the broker acknowledged with what the
// consumer received, by UNIQ_KEY.
type VerifyReport struct {
	Acked      int64 `json:"acked"`                   // sends the broker acknowledged (any stored status)
	Received   int64 `json:"received"`                // distinct keys of this run received
	Missing    int64 `json:"missing"`                 // acknowledged, never received
	Duplicates int64 `json:"duplicates"`              // extra deliveries of a key already received
	Unacked    int64 `json:"unacked"`                 // received although the send was not acknowledged
	FirstGaps  []int `json:"first_missing,omitempty"` // up to 10 missing sequence numbers
	// Misplaced counts messages pulled from another queue, queue offset or
	// CommitLog offset than their send's answer (queueId, queueOffset, msgId) said.
	Misplaced      int64  `json:"misplaced"`
	FirstMisplaced string `json:"first_misplaced,omitempty"`
}

// OK reports whether nothing is missing, duplicated or misplaced.
func (v *VerifyReport) OK() bool { return v.Missing == 0 && v.Duplicates == 0 && v.Misplaced == 0 }

func (t *tracker) report() *VerifyReport {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := &VerifyReport{Misplaced: t.misplaced, FirstMisplaced: t.firstMisplaced}
	for seq, st := range t.state {
		recv := int64(st >> 1)
		if st&stateAcked != 0 {
			r.Acked++
			if recv == 0 {
				r.Missing++
				if len(r.FirstGaps) < 10 {
					r.FirstGaps = append(r.FirstGaps, seq)
				}
			}
		} else if recv > 0 {
			r.Unacked++
		}
		if recv > 0 {
			r.Received++
			r.Duplicates += recv - 1
		}
	}
	return r
}
