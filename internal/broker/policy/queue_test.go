package policy

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSendQueue(t *testing.T) {
	pickLast := func(n int32) int32 { return n - 1 }
	for _, tc := range []struct {
		name        string
		requested   int32
		read, write int
		wantQueue   int32
		wantOK      bool
	}{
		{"a queue of the topic", 2, 4, 4, 2, true},
		{"the last queue", 3, 4, 4, 3, true},
		{"one past the last", 4, 4, 4, 4, false},
		{"more read than write queues: the larger count bounds", 5, 8, 4, 5, true},
		{"more write than read queues", 7, 4, 8, 7, true},
		{"negative: the broker picks among the write queues", -1, 8, 4, 3, true},
		{"negative with no write queues picks queue 0", -1, 4, 0, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, ok := SendQueue(tc.requested, tc.read, tc.write, pickLast)
			require.Equal(t, tc.wantOK, ok)
			require.Equal(t, tc.wantQueue, q)
		})
	}
}

func TestPullQueueOK(t *testing.T) {
	require.True(t, PullQueueOK(0, 1))
	require.True(t, PullQueueOK(3, 4))
	require.False(t, PullQueueOK(4, 4))
	require.False(t, PullQueueOK(-1, 4))
	require.False(t, PullQueueOK(0, 0))
}

func TestResetTarget(t *testing.T) {
	for _, tc := range []struct {
		name                    string
		target, committed, want int64
		force                   bool
	}{
		{"back in time", 3, 10, 3, false},
		{"forward without force keeps the committed offset", 12, 10, 10, false},
		{"the same offset", 10, 10, 10, false},
		{"forward with force", 12, 10, 12, true},
		{"back with force", 3, 10, 3, true},
		{"a negative target is 0", -1, 10, 0, false},
		{"a negative target with force is 0", -1, 10, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, ResetTarget(tc.target, tc.committed, tc.force))
		})
	}
}
