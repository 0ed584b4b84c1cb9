package quota

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestQuota(t *testing.T) {
	q := New(Limits{Groups: 3, Topics: 2})
	require.NoError(t, q.TakeGroups(1, 2))
	err := q.TakeGroups(1, 2)
	require.ErrorIs(t, err, ErrExceeded)
	require.EqualError(t, err, "quota exceeded: this connection has created 2 consumer groups and may create at most 3 (maxNewGroupsPerConnection)")
	require.NoError(t, q.TakeGroups(1, 1), "a refusal counts nothing")
	require.ErrorIs(t, q.TakeGroups(1, 1), ErrExceeded)
	require.NoError(t, q.TakeGroups(2, 3), "another connection has its own")
	require.NoError(t, q.TakeTopics(1, 2), "topics are counted apart")
	require.ErrorContains(t, q.TakeTopics(1, 1), "maxNewTopicsPerConnection")
	require.NoError(t, q.TakeGroups(0, 1000000), "the broker itself is not limited")
	require.Equal(t, 2, q.Connections())
	q.Release(1)
	require.NoError(t, q.TakeGroups(1, 3), "a new connection starts again")
	require.NoError(t, q.TakeGroups(1, 0))

	d := New(Limits{})
	require.NoError(t, d.TakeGroups(1, DefaultGroups))
	require.Error(t, d.TakeGroups(1, 1))
}
