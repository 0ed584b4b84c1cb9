package processor_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/broker/send"
	"github.com/rocketgo/rocketgo/internal/broker/timing"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// timersFake is the Timers service of fakes.
type timersFake struct{ *fakes }

func (f timersFake) CheckpointBody() []byte { return []byte{1, 2, 3} }
func (f timersFake) Metrics() body.TimerMetrics {
	return body.TimerMetrics{DataVersion: body.DataVersion{Counter: 4, Timestamp: 5},
		TimingCount: map[string]body.TimerMetric{"T": {Count: 2, TimeStamp: 6}}}
}
func (f timersFake) Recall(r timing.RecallRequest) (string, error) {
	r.BornHost = loopback
	a := f.called(r)
	return "ID-1", a.err
}

func TestTimerHandlers(t *testing.T) {
	f := &fakes{}
	c := serve(t, f)
	resp := c.Call(protocol.NewRequest(protocol.GetTimerCheckPoint, nil, nil))
	requireAnswer(t, resp, protocol.Success, "")
	require.Equal(t, []byte{1, 2, 3}, resp.Body)

	resp = c.Call(protocol.NewRequest(protocol.GetTimerMetrics, nil, nil))
	requireAnswer(t, resp, protocol.Success, "")
	require.JSONEq(t, `{"dataVersion":{"counter":4,"timestamp":5},"timingCount":{"T":{"count":2,"timeStamp":6}}}`, string(resp.Body))
}

func recallRequest(topic, handle string) *protocol.Command {
	req := protocol.NewRequest(protocol.RecallMessage, nil, nil)
	protocol.RecallMessageRequestHeader{ProducerGroup: protocol.Some("PG"), Topic: topic, RecallHandle: handle,
		BrokerName: protocol.Some("broker-a")}.Encode(&req.ExtFields)
	return req
}

func TestRecallHandler(t *testing.T) {
	f := &fakes{}
	c := serve(t, f)
	resp := c.Call(recallRequest("T", "H"))
	requireAnswer(t, resp, protocol.Success, "")
	require.Equal(t, map[string]string{"msgId": "ID-1", "MSG_REGION": "DefaultRegion"}, resp.ExtFields.Map())
	require.Equal(t, timing.RecallRequest{ProducerGroup: "PG", Topic: "T", Handle: "H", BornHost: loopback}, f.last())

	f.set(func(a *answers) { a.err = outcome.Errorf(outcome.IllegalOperation, "recall failed, topic not match") })
	requireAnswer(t, c.Call(recallRequest("T", "H")), protocol.IllegalOperation, "recall failed, topic not match")

	bad := recallRequest("T", "H")
	bad.ExtFields.Delete("recallHandle")
	requireAnswer(t, c.Call(bad), protocol.SystemError, "the custom field <recallHandle> is null")
}

// A single send stored as a timer message answers its recall handle; a batch never does.
func TestSendHandlerRecallHandle(t *testing.T) {
	f := &fakes{a: answers{sendResult: send.Result{RecallHandle: "HANDLE"}}}
	c := serve(t, f)
	m := brokertest.Msg{Topic: "T", Body: []byte("x")}
	require.Equal(t, "HANDLE", c.Call(brokertest.SendRequest(m)).ExtFields.Get("recallHandle"))
	require.Equal(t, "HANDLE", c.Call(brokertest.SendV2Request(m)).ExtFields.Get("recallHandle"))
	_, ok := c.Call(brokertest.BatchRequest(m)).ExtFields.Lookup("recallHandle")
	require.False(t, ok)
}
