package broker_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

func lockRequest(t *testing.T, code protocol.RequestCode, group, client string, mqs ...body.MessageQueue) *protocol.Command {
	t.Helper()
	data, err := body.Marshal(body.LockBatchRequestBody{ConsumerGroup: group, ClientID: client, MQSet: mqs})
	require.NoError(t, err)
	return protocol.NewRequest(code, nil, data)
}

func lockedQueues(t *testing.T, resp *protocol.Command) []body.MessageQueue {
	t.Helper()
	requireCode(t, resp, protocol.Success)
	var r body.LockBatchResponseBody
	require.NoError(t, body.Unmarshal(resp.Body, &r))
	require.NotNil(t, r.LockOKMQSet, "lockOKMQSet is always present")
	return r.LockOKMQSet
}

// TestOrderlyQueueLocks: LOCK_BATCH_MQ gives each queue to one client of a group until it unlocks.
func TestOrderlyQueueLocks(t *testing.T) {
	b := brokertest.Start(t)
	c := b.Dial(t)
	q0 := body.MessageQueue{Topic: "OrderTopic", BrokerName: "broker-a", QueueID: 0}
	q1 := body.MessageQueue{Topic: "OrderTopic", BrokerName: "broker-a", QueueID: 1}

	got := lockedQueues(t, c.Call(lockRequest(t, protocol.LockBatchMQ, "G", "client-1", q0, q1)))
	require.ElementsMatch(t, []body.MessageQueue{q0, q1}, got)
	require.Empty(t, lockedQueues(t, c.Call(lockRequest(t, protocol.LockBatchMQ, "G", "client-2", q0, q1))))

	requireCode(t, c.Call(lockRequest(t, protocol.UnlockBatchMQ, "G", "client-1", q1)), protocol.Success)
	require.Equal(t, []body.MessageQueue{q1}, lockedQueues(t, c.Call(lockRequest(t, protocol.LockBatchMQ, "G", "client-2", q0, q1))))

	bad := protocol.NewRequest(protocol.LockBatchMQ, nil, []byte("{not json"))
	requireCode(t, c.Call(bad), protocol.SystemError, "bad lock body")
}
