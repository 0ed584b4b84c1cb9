package broker_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// TestConsumerRunningInfoIsRelayed: an admin asks the broker for a client's running info; the
// broker asks that client over its own connection and relays the client's answer.
func TestConsumerRunningInfoIsRelayed(t *testing.T) {
	b := brokertest.Start(t)
	admin, client := b.Dial(t), b.Dial(t)
	const group, clientID = "G_RUNINFO", "10.0.0.7@7"
	requireCode(t, client.Call(brokertest.HeartbeatRequest(t, clientID, group, map[string]string{"RunInfoTopic": "*"})), protocol.Success)

	opaque := admin.Send(protocol.NewRequest(protocol.GetConsumerRunningInfo,
		map[string]string{"consumerGroup": group, "clientId": clientID, "jstackEnable": "false"}, nil))
	asked := client.AwaitRequest(protocol.GetConsumerRunningInfo)
	require.Equal(t, clientID, asked.ExtFields.Get("clientId"))
	answer := protocol.NewResponse(asked, protocol.Success, "")
	answer.Body = []byte(`{"properties":{"PROP_CONSUME_TYPE":"CONSUME_PASSIVELY"}}`)
	frame, err := protocol.EncodeCommand(answer)
	require.NoError(t, err)
	client.WriteRaw(frame)

	resp := admin.Await(opaque)
	requireCode(t, resp, protocol.Success)
	require.Equal(t, string(answer.Body), string(resp.Body))

	// A client that is not in the group.
	resp = admin.Call(protocol.NewRequest(protocol.GetConsumerRunningInfo,
		map[string]string{"consumerGroup": group, "clientId": "nobody"}, nil))
	requireCode(t, resp, protocol.SystemError, "not online")
}
