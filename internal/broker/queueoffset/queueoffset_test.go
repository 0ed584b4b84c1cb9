package queueoffset

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

type fakeOffsets map[string]int64

func (f fakeOffsets) Query(group, topic string, q int32) (int64, bool) {
	off, ok := f[group+"/"+topic]
	return off, ok
}

func (f fakeOffsets) Commit(group, topic string, _ int32, off int64) { f[group+"/"+topic] = off }

func (f fakeOffsets) Wrapper() body.ConsumerOffsetSerializeWrapper {
	return body.ConsumerOffsetSerializeWrapper{OffsetTable: map[string]map[int32]int64{"T@G": {0: f["G/T"]}}}
}

// fakeStore: queue 0 starts at 0, queue 1 at min; times are offsets*10.
type fakeStore struct{ min int64 }

func (f fakeStore) MinOffsetInQueue(_ string, q int32) int64 {
	if q == 0 {
		return 0
	}
	return f.min
}
func (f fakeStore) MaxOffsetInQueue(string, int32) int64                  { return 50 }
func (f fakeStore) EarliestMessageTime(string, int32) int64               { return 1000 }
func (f fakeStore) OffsetInQueueByTime(_ string, _ int32, ts int64) int64 { return ts / 10 }

func TestCommitted(t *testing.T) {
	offs := fakeOffsets{}
	s := New(offs, fakeStore{min: 7}, nil)
	off, err := s.Committed("G", "T", 0)
	require.NoError(t, err)
	require.Equal(t, int64(0), off, "no offset on a queue that starts at 0: start there")
	_, err = s.Committed("G", "T", 1)
	require.Equal(t, &outcome.Error{Kind: outcome.QueryNotFound,
		Remark: "Not found, V3_0_6_SNAPSHOT maybe this group consumer boot first"}, err)

	require.NoError(t, s.Commit(1, "G", "T", 1, 12))
	off, err = s.Committed("G", "T", 1)
	require.NoError(t, err)
	require.Equal(t, int64(12), off)

	offs["G/T"] = -1
	_, err = s.Committed("G", "T", 1)
	require.True(t, outcome.Is(err, outcome.QueryNotFound), "a negative committed offset is none")
	require.Equal(t, int64(-1), s.All().OffsetTable["T@G"][0])
}

func TestQueueQuestions(t *testing.T) {
	s := New(fakeOffsets{}, fakeStore{min: 7}, nil)
	require.Equal(t, int64(50), s.MaxOffset("T", 1))
	require.Equal(t, int64(7), s.MinOffset("T", 1))
	require.Equal(t, int64(1000), s.EarliestTime("T", 1))
	require.Equal(t, int64(33), s.OffsetByTime("T", 1, 330))
}

type known struct{}

func (known) FindOrCreateGroup(owner uint64, g string) (bool, error) {
	if owner == 666 {
		return false, errors.New("quota exceeded")
	}
	return g == "G", nil
}
func (known) TopicQueues(t string) (int, bool) {
	if t == "T" {
		return 2, true
	}
	return 0, false
}

// TestCommitNamesWhatExists: a commit for a group or topic the broker does not have, or a queue
// the topic does not have, is refused and stores nothing.
func TestCommitNamesWhatExists(t *testing.T) {
	offs := fakeOffsets{}
	s := New(offs, fakeStore{}, known{})
	require.NoError(t, s.Commit(1, "G", "T", 1, 5))
	require.Equal(t, &outcome.Error{Kind: outcome.GroupNotExist, Remark: "Group Other not exist!"}, s.Commit(1, "Other", "T", 0, 1))
	require.Equal(t, &outcome.Error{Kind: outcome.GroupNotExist, Remark: `Group not exist: The specified group "a b" contains ` +
		"illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$"}, s.Commit(1, "a b", "T", 0, 1))
	require.Equal(t, &outcome.Error{Kind: outcome.SystemError, Remark: "Group G cannot be created: quota exceeded"}, s.Commit(666, "G", "T", 0, 1))
	require.Equal(t, &outcome.Error{Kind: outcome.TopicNotExist, Remark: `Topic "../x" not exist!`}, s.Commit(1, "G", "../x", 0, 1))
	require.Equal(t, &outcome.Error{Kind: outcome.SystemError, Remark: "queueId 2 is not a queue of topic T, which has 2"},
		s.Commit(1, "G", "T", 2, 1))
	require.Error(t, s.Commit(1, "G", "T", -1, 1))
	require.Equal(t, fakeOffsets{"G/T": 5}, offs)
}
