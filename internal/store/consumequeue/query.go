package consumequeue

// StoreTimeFunc reads the store timestamp of the record an entry points at; it
// returns a negative value when the record is gone.
type StoreTimeFunc func(offset int64, size int32) int64

// OffsetByTime finds the queue offset for a timestamp with RocketMQ 4.9's rule
// (ConsumeQueue.getOffsetInQueueByTime), by binary search over the live entries
// reading store times from the CommitLog:
//
//   - the first entry stored exactly at ts, if any;
//   - else the nearer of the last entry before ts and the first after it (the
//     earlier on a tie);
//   - the first entry after ts when none is before it, the last entry when none
//     is after it;
//   - 0 when the queue is empty or a record cannot be read.
//
// Entries below minPhy (the CommitLog's min offset) and blanks count as before ts.
// Java searches only the file whose modification time matches; this searches
// the whole queue, which gives the same answer when file times are in order.
func (cq *ConsumeQueue) OffsetByTime(ts, minPhy int64, storeTime StoreTimeFunc) int64 {
	lo, hi := cq.MinOffset(), cq.MaxOffset()-1
	if hi < lo {
		return 0
	}
	left, right := int64(-1), int64(-1)
	leftTS, rightTS := int64(-1), int64(-1)
	for lo <= hi {
		mid := lo + (hi-lo)/2
		e, ok := cq.Get(mid)
		if !ok {
			return 0
		}
		if e.IsBlank() || e.Offset < minPhy {
			lo, left = mid+1, mid
			continue
		}
		st := storeTime(e.Offset, e.Size)
		if st < 0 {
			return 0
		}
		if st >= ts {
			hi, right, rightTS = mid-1, mid, st
		} else {
			lo, left, leftTS = mid+1, mid, st
		}
	}
	switch {
	case rightTS == ts:
		return right
	case leftTS < 0 && right >= 0:
		return right
	case right < 0 && left >= 0:
		return left
	case right < 0:
		return 0
	case ts-leftTS > rightTS-ts:
		return right
	default:
		return left
	}
}

// StoreTimeAt is the store time of the record at queue offset qoff, -1 if
// there is none.
func (cq *ConsumeQueue) StoreTimeAt(qoff int64, storeTime StoreTimeFunc) int64 {
	e, ok := cq.Get(qoff)
	if !ok || e.IsBlank() {
		return -1
	}
	return storeTime(e.Offset, e.Size)
}
