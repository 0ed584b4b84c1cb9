package ha

import (
	"sync"
	"time"
)

// byteRate counts bytes per wall-clock second, as Java's FlowMonitor does for
// transferredByteInSecond: perSecond is the total of the last complete second.
type byteRate struct {
	mu     sync.Mutex
	second int64 // the unix second cur belongs to
	cur    int64 // bytes counted in that second so far
	last   int64 // bytes of the second before it
}

// add counts n bytes moved at now.
func (r *byteRate) add(n int, now time.Time) {
	r.mu.Lock()
	r.rollLocked(now.Unix())
	r.cur += int64(n)
	r.mu.Unlock()
}

// perSecond is the number of bytes of the second before now's.
func (r *byteRate) perSecond(now time.Time) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rollLocked(now.Unix())
	return r.last
}

// rollLocked moves the count on to second sec. REQUIRES: r.mu.
func (r *byteRate) rollLocked(sec int64) {
	switch sec {
	case r.second:
		return
	case r.second + 1:
		r.last = r.cur
	default:
		r.last = 0
	}
	r.second, r.cur = sec, 0
}
