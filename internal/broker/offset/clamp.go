package offset

// QueueBounds reports a queue's recovered min and max offsets (max = the next offset to be
// written). ok is false when the store has no such queue.
type QueueBounds func(topic string, queueID int32) (min, max int64, ok bool)

// ClampTo keeps the committed offsets of every group for one queue inside [min, max]: an offset
// beyond the recovered end (lost on an unclean shutdown) becomes max, one below the first retained
// entry becomes min. Offsets are never reset to 0. It returns how many offsets changed.
func (m *Manager) ClampTo(topic string, queueID int32, min, max int64) int {
	return m.Clamp(func(t string, q int32) (int64, int64, bool) {
		return min, max, t == topic && q == queueID
	})
}

// Clamp applies ClampTo to every committed offset, with bounds from the store; queues the store
// does not know are left alone. The broker calls it after recovery. It returns how many offsets
// changed.
func (m *Manager) Clamp(bounds QueueBounds) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	changed := 0
	for key, queues := range m.mu.table {
		topic, _, ok := SplitKey(key)
		if !ok {
			continue
		}
		for q, off := range queues {
			lo, hi, ok := bounds(topic, q)
			if !ok || lo > hi {
				continue
			}
			switch {
			case off > hi:
				queues[q] = hi
			case off < lo:
				queues[q] = lo
			default:
				continue
			}
			changed++
		}
	}
	if changed > 0 {
		m.mu.seq++
	}
	return changed
}
