package rebalance

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

func TestLocksAreExclusiveUntilReleasedOrExpired(t *testing.T) {
	now := time.Unix(1000, 0)
	m := NewLockManager(time.Minute, func() time.Time { return now })
	q0 := body.MessageQueue{Topic: "T", BrokerName: "b", QueueID: 0}
	q1 := body.MessageQueue{Topic: "T", BrokerName: "b", QueueID: 1}

	require.ElementsMatch(t, []body.MessageQueue{q0, q1}, m.TryLockBatch("g", []body.MessageQueue{q0, q1}, "c1"))
	require.Empty(t, m.TryLockBatch("g", []body.MessageQueue{q0, q1}, "c2"))
	require.True(t, m.IsLocked("g", q0, "c1"))
	// Another group is independent.
	require.Len(t, m.TryLockBatch("g2", []body.MessageQueue{q0}, "c2"), 1)

	m.UnlockBatch("g", []body.MessageQueue{q0}, "c2") // not the owner: no effect
	require.True(t, m.IsLocked("g", q0, "c1"))
	m.UnlockBatch("g", []body.MessageQueue{q0}, "c1")
	require.Equal(t, []body.MessageQueue{q0}, m.TryLockBatch("g", []body.MessageQueue{q0, q1}, "c2"))

	// c1 stops renewing q1: after the live time it can be taken.
	now = now.Add(61 * time.Second)
	require.False(t, m.IsLocked("g", q1, "c1"))
	require.ElementsMatch(t, []body.MessageQueue{q0, q1}, m.TryLockBatch("g", []body.MessageQueue{q0, q1}, "c2"))
}
