package processor_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/internal/broker/client"
	"github.com/rocketgo/rocketgo/internal/broker/processor"
	"github.com/rocketgo/rocketgo/internal/broker/relay"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// member connects a client and returns it and the broker side of its connection, as a
// heartbeat registers it.
func member(t *testing.T) (*brokertest.Conn, client.Channel) {
	t.Helper()
	f := &fakes{}
	c := serve(t, f)
	requireAnswer(t, c.Call(brokertest.HeartbeatRequest(t, "10.0.0.1@c1", "CG", map[string]string{"T": "*"})), protocol.Success, "")
	return c, f.channel(0).Channel
}

// answer replies to the broker's request req from the client side.
func answer(t *testing.T, c *brokertest.Conn, req *protocol.Command, code protocol.ResponseCode, remark string, data []byte) {
	t.Helper()
	resp := protocol.NewResponse(req, code, remark)
	resp.Body = data
	frame, err := protocol.EncodeCommand(resp)
	require.NoError(t, err)
	c.WriteRaw(frame)
}

type called struct {
	a   relay.Answer
	err error
}

func TestClientsRunningInfo(t *testing.T) {
	c, ch := member(t)
	done := make(chan called, 1)
	go func() {
		a, err := processor.Clients{}.RunningInfo(context.Background(), ch, relay.RunningInfoQuery{Group: "CG", ClientID: "c1", Jstack: true})
		done <- called{a, err}
	}()
	req := c.AwaitRequest(protocol.GetConsumerRunningInfo)
	require.Equal(t, protocol.JSON, req.SerializeType, "server-initiated requests are JSON")
	require.Equal(t, map[string]string{"consumerGroup": "CG", "clientId": "c1", "jstackEnable": "true"}, req.ExtFields.Map())
	answer(t, c, req, protocol.SystemBusy, "busy", []byte("info"))
	got := <-done
	require.NoError(t, got.err)
	require.Equal(t, relay.Answer{Code: int32(protocol.SystemBusy), Remark: "busy", Body: []byte("info")}, got.a)
}

func TestClientsConsumeDirectly(t *testing.T) {
	c, ch := member(t)
	done := make(chan called, 1)
	go func() {
		a, err := processor.Clients{}.ConsumeDirectly(context.Background(), ch, relay.DirectQuery{Group: "CG", ClientID: "c1",
			MsgID: "M", BrokerName: "broker-a", Record: []byte("rec")})
		done <- called{a, err}
	}()
	req := c.AwaitRequest(protocol.ConsumeMessageDirectly)
	require.Equal(t, map[string]string{"consumerGroup": "CG", "clientId": "c1", "msgId": "M", "brokerName": "broker-a"},
		req.ExtFields.Map())
	require.Equal(t, []byte("rec"), req.Body)
	answer(t, c, req, protocol.Success, "", []byte("{}"))
	got := <-done
	require.NoError(t, got.err)
	require.Equal(t, []byte("{}"), got.a.Body)
}

func TestClientsConsumerStatus(t *testing.T) {
	c, ch := member(t)
	type status struct {
		table map[body.MessageQueue]int64
		err   error
	}
	ask := func() chan status {
		done := make(chan status, 1)
		go func() {
			table, err := processor.Clients{}.ConsumerStatus(context.Background(), ch, "T", "CG")
			done <- status{table, err}
		}()
		return done
	}
	done := ask()
	req := c.AwaitRequest(protocol.GetConsumerStatusFromClient)
	require.Equal(t, map[string]string{"topic": "T", "group": "CG"}, req.ExtFields.Map())
	answer(t, c, req, protocol.Success, "", []byte(`{"messageQueueTable":{{"topic":"T","brokerName":"b","queueId":1}:6}}`))
	got := <-done
	require.NoError(t, got.err)
	require.Equal(t, map[body.MessageQueue]int64{{Topic: "T", BrokerName: "b", QueueID: 1}: 6}, got.table)

	done = ask()
	answer(t, c, c.AwaitRequest(protocol.GetConsumerStatusFromClient), protocol.SystemError, "no", nil)
	got = <-done
	require.NoError(t, got.err)
	require.Nil(t, got.table, "a refusal is no table")

	done = ask()
	answer(t, c, c.AwaitRequest(protocol.GetConsumerStatusFromClient), protocol.Success, "", []byte("{"))
	require.ErrorContains(t, (<-done).err, "decode consumer status")
}

func TestClientsOneway(t *testing.T) {
	c, ch := member(t)
	require.NoError(t, processor.Clients{}.NotifyConsumerIDsChanged(ch, "CG"))
	req := c.AwaitRequest(protocol.NotifyConsumerIdsChanged)
	require.True(t, req.IsOneway())
	require.Equal(t, map[string]string{"consumerGroup": "CG"}, req.ExtFields.Map())

	mq := body.MessageQueue{Topic: "T", BrokerName: "b", QueueID: 0}
	n := relay.ResetNotice{ResetRequest: relay.ResetRequest{Topic: "T", Group: "CG", Timestamp: 9, Force: true},
		Offsets: map[body.MessageQueue]int64{mq: 4}}
	require.NoError(t, processor.Clients{}.ResetOffset(ch, n))
	req = c.AwaitRequest(protocol.ResetConsumerClientOffset)
	require.True(t, req.IsOneway())
	require.Equal(t, map[string]string{"topic": "T", "group": "CG", "timestamp": "9", "isForce": "true"}, req.ExtFields.Map())
	back, err := body.DecodeResetOffsetBody(req.Body)
	require.NoError(t, err)
	require.Equal(t, n.Offsets, back.OffsetTable)

	n.Language = "CPP"
	require.NoError(t, processor.Clients{}.ResetOffset(ch, n))
	req = c.AwaitRequest(protocol.ResetConsumerClientOffset)
	require.Equal(t, `{"offsetTable":[{"brokerName":"b","offset":4,"queueId":0,"topic":"T"}]}`, string(req.Body),
		"a C++ tool's reset is told in the C++ client's encoding")
}

// otherChannel is a client connection of another protocol.
type otherChannel struct{}

func (otherChannel) ID() uint64                           { return 9 }
func (otherChannel) RemoteAddr() string                   { return "10.0.0.2:1" }
func (otherChannel) InvokeOneway(*protocol.Command) error { return nil }

func TestClientsNotCallable(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, err := processor.Clients{}.RunningInfo(ctx, otherChannel{}, relay.RunningInfoQuery{})
	require.ErrorIs(t, err, relay.ErrNotCallable)
	_, err = processor.Clients{}.ConsumerStatus(ctx, otherChannel{}, "T", "G")
	require.ErrorIs(t, err, relay.ErrNotCallable)
}
