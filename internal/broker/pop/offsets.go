package pop

import (
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// popOffset is where a group's pop of a queue starts: its committed offset, or for a group
// without one the init offset (committed when init is set, as Java does under the queue lock).
func (s *Service) popOffset(topic, group string, q int32, initMode int32, init bool) int64 {
	if off, ok := s.Deps.Offsets.Query(group, topic, q); ok && off >= 0 {
		return off
	}
	return s.initOffset(topic, group, q, initMode, init)
}

// initOffset is Java's getInitOffset: the queue's first offset in MIN mode and for retry
// topics; in MAX mode the last message, or the first when the queue starts at 0 and its first
// message is still in memory (initPopOffsetByCheckMsgInMem).
func (s *Service) initOffset(topic, group string, q int32, initMode int32, init bool) int64 {
	st := s.Deps.Store
	var off int64
	switch {
	case initMode == InitModeMin || systopic.IsRetry(topic):
		off = st.MinOffsetInQueue(topic, q)
	case st.MinOffsetInQueue(topic, q) <= 0 && s.firstInMemory(topic, q):
		off = 0
	default:
		off = max(st.MaxOffsetInQueue(topic, q)-1, 0)
	}
	if init {
		s.Deps.Offsets.Commit(group, topic, q, off)
	}
	return off
}

// firstInMemory reports whether the queue's message at offset 0 is in memory: the store would
// not suggest reading it from a slave.
func (s *Service) firstInMemory(topic string, q int32) bool {
	got := s.Deps.Store.GetMessage(systopic.ReviveGroup, topic, q, 0, 1, nil)
	if got == nil {
		return false
	}
	defer got.Release()
	return got.Status == store.Found && !got.SuggestPullingFromSlave
}

// read reads a queue for a pop. An offset the store says is out of the queue is corrected to
// the store's next begin offset, committed, and read again (Java's "maybe store offset is not
// correct"). It returns the read and the offset it started at; nil when the store is closed.
func (s *Service) read(topic, group string, q int32, offset int64, n int32, f *subFilter) (*store.GetResult, int64) {
	got := s.Deps.Store.GetMessage(group, topic, q, offset, n, f.storeFilter())
	if got == nil {
		return nil, offset
	}
	switch got.Status {
	case store.OffsetTooSmall, store.OffsetOverflowBadly, store.OffsetFoundNull:
		if got.NextBeginOffset == offset {
			return got, offset
		}
		offset = got.NextBeginOffset
		got.Release()
		s.Deps.Offsets.Commit(group, topic, q, offset)
		got = s.Deps.Store.GetMessage(group, topic, q, offset, n, f.storeFilter())
	}
	return got, offset
}
