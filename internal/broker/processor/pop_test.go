package processor_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/assign"
	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/broker/pop"
	"github.com/rocketgo/rocketgo/internal/broker/processor"
	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// popFake stands in for the POP and assignment services: it records each call and answers with
// its fields.
type popFake struct {
	mu      sync.Mutex
	calls   []any
	err     error
	res     pop.Result
	held    bool
	wake    func(pop.Result, error)
	nwake   func(pop.NotifyResult)
	change  pop.ChangeResult
	notify  pop.NotifyResult
	polling int
	assign  []body.MessageQueueAssignment
	assOK   bool
	closed  []uint64
}

// edit changes the fake's answers under its lock (the handlers read them on other goroutines).
func (f *popFake) edit(e func(*popFake)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	e(f)
}

func (f *popFake) wakePop(res pop.Result, err error) {
	f.mu.Lock()
	w := f.wake
	f.mu.Unlock()
	w(res, err)
}

func (f *popFake) wakeNotify(res pop.NotifyResult) {
	f.mu.Lock()
	w := f.nwake
	f.mu.Unlock()
	w(res)
}

// calledTimes waits until the fake has been called n times in all: the handler of a request sent
// last has run (a later request's answer does not say so; the server serves requests at once).
func (f *popFake) calledTimes(t *testing.T, n int) {
	t.Helper()
	require.Eventually(t, func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		return len(f.calls) >= n
	}, 5*time.Second, time.Millisecond)
}

func (f *popFake) call(v any) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, v)
	return f.err
}

func (f *popFake) last() any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[len(f.calls)-1]
}

func (f *popFake) Pop(r pop.Request, wake func(pop.Result, error)) (pop.Result, bool, error) {
	r.ConnID = 0
	err := f.call(r)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.wake = wake
	return f.res, f.held, err
}

func (f *popFake) Ack(r pop.AckRequest) error       { return f.call(r) }
func (f *popFake) BatchAck(a []body.BatchAck) error { return f.call(a) }

func (f *popFake) ChangeInvisibleTime(r pop.ChangeRequest) (pop.ChangeResult, error) {
	r.ConnID = 0
	err := f.call(r)
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.change, err
}

func (f *popFake) Peek(r pop.PeekRequest) (pop.Result, error) {
	r.ConnID = 0
	err := f.call(r)
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.res, err
}

func (f *popFake) Notification(r pop.NotifyRequest, wake func(pop.NotifyResult)) (pop.NotifyResult, bool, error) {
	r.ConnID = 0
	err := f.call(r)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nwake = wake
	return f.notify, f.held, err
}

func (f *popFake) PollingInfo(group, topic string, q int32, _ uint64) (int, error) {
	err := f.call([]any{group, topic, q})
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.polling, err
}

func (f *popFake) ConnClosed(id uint64) {
	f.mu.Lock()
	f.closed = append(f.closed, id)
	f.mu.Unlock()
}

func (f *popFake) Assign(q assign.Query) ([]body.MessageQueueAssignment, bool, error) {
	err := f.call(q)
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.assign, f.assOK, err
}

func (f *popFake) SetMode(m body.SetMessageRequestModeRequestBody) error { return f.call(m) }

func (f *popFake) All() body.MessageRequestModeSerializeWrapper {
	return body.MessageRequestModeSerializeWrapper{MessageRequestModeMap: map[string]map[string]body.SetMessageRequestModeRequestBody{
		"T": {"G": {Topic: "T", ConsumerGroup: "G", Mode: body.RequestModePop}}}}
}

func servePop(t *testing.T, pf *popFake) *brokertest.Conn {
	t.Helper()
	f := &fakes{}
	p := processor.New(processor.Options{}, processor.Services{Send: f, SendBack: f, Pull: f, Offsets: f, Members: members{f},
		Query: f, EndTx: f, Topics: topics{f}, Groups: groups{f}, Stats: statsFake{f}, Config: config{f}, Relay: relayFake{f},
		Locks: f, DelayOffsets: f, Pop: pf, Assign: pf})
	srv := remoting.NewServer(remoting.ServerOptions{Addr: "127.0.0.1:0", OnDisconnect: p.ConnClosed}, nil)
	p.Register(srv)
	require.NoError(t, srv.Start())
	t.Cleanup(func() { _ = srv.Close() })
	return brokertest.Dial(t, srv.Addr().String())
}

func TestPopHandler(t *testing.T) {
	pf := &popFake{res: pop.Result{Status: outcome.OK, Remark: "FOUND", PopTime: 7, InvisibleTime: 60000, ReviveQid: 3,
		RestNum: 2, StartOffsetInfo: "0 1 5", MsgOffsetInfo: "0 1 5,6", Records: [][]byte{[]byte("r1"), []byte("r2")}}}
	c := servePop(t, pf)
	h := protocol.PopMessageRequestHeader{ConsumerGroup: "G", Topic: "T", QueueID: -1, MaxMsgNums: 2, InvisibleTime: 60000,
		PollTime: 15000, BornTime: protocol.Some(int64(9)), InitMode: 1, ExpType: protocol.Some("TAG"), Exp: protocol.Some("a"),
		Order: protocol.Some(true), AttemptID: protocol.Some("x")}
	resp := c.Call(protocol.NewHeaderRequest(protocol.PopMessage, &h, nil))
	requireAnswer(t, resp, protocol.Success, "FOUND")
	require.Equal(t, map[string]string{"popTime": "7", "invisibleTime": "60000", "reviveQid": "3", "restNum": "2",
		"startOffsetInfo": "0 1 5", "msgOffsetInfo": "0 1 5,6"}, resp.ExtFields.Map())
	require.Equal(t, []byte("r1r2"), resp.Body)
	require.Equal(t, pop.Request{Group: "G", Topic: "T", QueueID: -1, MaxMsgNums: 2, InvisibleTime: 60000, PollTime: 15000,
		BornTime: 9, InitMode: 1, ExpType: "TAG", Exp: "a", Order: true, AttemptID: "x"}, pf.last())

	pf.edit(func(f *popFake) { f.held = true })
	op := c.Send(protocol.NewHeaderRequest(protocol.PopMessage, &h, nil))
	pf.calledTimes(t, 2)
	c.Sync()
	require.False(t, c.Answered(op), "a held pop is not answered yet")
	pf.wakePop(pop.Result{Status: outcome.PollingTimeout, Remark: "NO_MESSAGE_IN_QUEUE", PopTime: 8}, nil)
	requireAnswer(t, c.Await(op), protocol.PollingTimeout, "NO_MESSAGE_IN_QUEUE")
	op = c.Send(protocol.NewHeaderRequest(protocol.PopMessage, &h, nil))
	pf.calledTimes(t, 3)
	pf.wakePop(pop.Result{}, outcome.Errorf(outcome.TopicNotExist, "gone"))
	requireAnswer(t, c.Await(op), protocol.TopicNotExist, "gone")

	pf.edit(func(f *popFake) { f.held, f.err = false, outcome.Errorf(outcome.InvalidParameter, "too many") })
	requireAnswer(t, c.Call(protocol.NewHeaderRequest(protocol.PopMessage, &h, nil)), protocol.InvalidParameter, "too many")
}

func TestAckHandlers(t *testing.T) {
	pf := &popFake{change: pop.ChangeResult{PopTime: 11, InvisibleTime: 500, ReviveQid: 2}}
	c := servePop(t, pf)
	ack := protocol.AckMessageRequestHeader{ConsumerGroup: "G", Topic: "T", QueueID: 1, ExtraInfo: "e", Offset: 5}
	requireAnswer(t, c.Call(protocol.NewHeaderRequest(protocol.AckMessage, &ack, nil)), protocol.Success, "")
	require.Equal(t, pop.AckRequest{Group: "G", Topic: "T", QueueID: 1, ExtraInfo: "e", Offset: 5}, pf.last())

	batch := `{"acks":[{"c":"G","t":"T","r":"0","so":5,"q":1,"rq":2,"pt":7,"it":9,"b":"Aw=="}],"brokerName":"b"}`
	requireAnswer(t, c.Call(protocol.NewRequest(protocol.BatchAckMessage, nil, []byte(batch))), protocol.Success, "")
	require.Equal(t, []body.BatchAck{{ConsumerGroup: "G", Topic: "T", Retry: "0", StartOffset: 5, QueueID: 1, ReviveQueueID: 2,
		PopTime: 7, InvisibleTime: 9, BitSet: body.BitSet{3}}}, pf.last())
	requireAnswer(t, c.Call(protocol.NewRequest(protocol.BatchAckMessage, nil, []byte("{"))), protocol.SystemError,
		"body: decode BatchAckMessageRequestBody: body: json offset 1: unexpected end")

	ch := protocol.ChangeInvisibleTimeRequestHeader{ConsumerGroup: "G", Topic: "T", QueueID: 1, ExtraInfo: "e", Offset: 5, InvisibleTime: 500}
	resp := c.Call(protocol.NewHeaderRequest(protocol.ChangeMessageInvisibleTime, &ch, nil))
	requireAnswer(t, resp, protocol.Success, "")
	require.Equal(t, map[string]string{"popTime": "11", "invisibleTime": "500", "reviveQid": "2"}, resp.ExtFields.Map())
	require.Equal(t, pop.ChangeRequest{AckRequest: pop.AckRequest{Group: "G", Topic: "T", QueueID: 1, ExtraInfo: "e", Offset: 5},
		InvisibleTime: 500}, pf.last())

	pf.edit(func(f *popFake) { f.err = outcome.Errorf(outcome.NoMessage, "offset is illegal") })
	requireAnswer(t, c.Call(protocol.NewHeaderRequest(protocol.AckMessage, &ack, nil)), protocol.NoMessage, "offset is illegal")
}

func TestPeekNotificationPollingHandlers(t *testing.T) {
	pf := &popFake{res: pop.Result{Status: outcome.PullNotFound, Remark: "NO_MESSAGE_IN_QUEUE", RestNum: 4},
		notify: pop.NotifyResult{HasMsg: true}, polling: 3}
	c := servePop(t, pf)
	peek := protocol.PeekMessageRequestHeader{Topic: "T", QueueID: 0, MaxMsgNums: 8, ConsumerGroup: "G"}
	resp := c.Call(protocol.NewHeaderRequest(protocol.PeekMessage, &peek, nil))
	requireAnswer(t, resp, protocol.PullNotFound, "NO_MESSAGE_IN_QUEUE")
	require.Equal(t, "4", resp.ExtFields.Get("restNum"))
	require.Equal(t, pop.PeekRequest{Group: "G", Topic: "T", QueueID: 0, MaxMsgNums: 8}, pf.last())

	n := protocol.NotificationRequestHeader{ConsumerGroup: "G", Topic: "T", QueueID: -1, PollTime: 100}
	resp = c.Call(protocol.NewHeaderRequest(protocol.Notification, &n, nil))
	requireAnswer(t, resp, protocol.Success, "")
	require.Equal(t, map[string]string{"hasMsg": "true", "pollingFull": "false"}, resp.ExtFields.Map())
	pf.edit(func(f *popFake) { f.held = true })
	op := c.Send(protocol.NewHeaderRequest(protocol.Notification, &n, nil))
	pf.calledTimes(t, 3)
	c.Sync()
	require.False(t, c.Answered(op))
	pf.wakeNotify(pop.NotifyResult{PollingFull: true})
	require.Equal(t, "true", c.Await(op).ExtFields.Get("pollingFull"))

	pi := protocol.PollingInfoRequestHeader{ConsumerGroup: "G", Topic: "T", QueueID: 2}
	resp = c.Call(protocol.NewHeaderRequest(protocol.PollingInfo, &pi, nil))
	requireAnswer(t, resp, protocol.Success, "")
	require.Equal(t, "3", resp.ExtFields.Get("pollingNum"))
	require.Equal(t, []any{"G", "T", int32(2)}, pf.last())
}

func TestAssignHandlers(t *testing.T) {
	pf := &popFake{assign: []body.MessageQueueAssignment{{MessageQueue: body.MessageQueue{Topic: "T", BrokerName: "b", QueueID: -1},
		Mode: body.RequestModePop}}, assOK: true}
	c := servePop(t, pf)
	q := []byte(`{"topic":"T","consumerGroup":"G","clientId":"c","strategyName":"AVG","messageModel":"CLUSTERING"}`)
	resp := c.Call(protocol.NewRequest(protocol.QueryAssignment, nil, q))
	requireAnswer(t, resp, protocol.Success, "")
	require.JSONEq(t, `{"messageQueueAssignments":[{"messageQueue":{"brokerName":"b","queueId":-1,"topic":"T"},"mode":"POP"}]}`, string(resp.Body))
	require.Equal(t, assign.Query{Topic: "T", ConsumerGroup: "G", ClientID: "c", StrategyName: "AVG", MessageModel: "CLUSTERING"}, pf.last())
	pf.edit(func(f *popFake) { f.assOK = false })
	require.Equal(t, "{}", string(c.Call(protocol.NewRequest(protocol.QueryAssignment, nil, q)).Body), "Java's null set")

	m := []byte(`{"topic":"T","consumerGroup":"G","mode":"POP","popShareQueueNum":1}`)
	requireAnswer(t, c.Call(protocol.NewRequest(protocol.SetMessageRequestMode, nil, m)), protocol.Success, "")
	require.Equal(t, body.SetMessageRequestModeRequestBody{Topic: "T", ConsumerGroup: "G", Mode: "POP", PopShareQueueNum: 1}, pf.last())
	resp = c.Call(protocol.NewRequest(protocol.GetAllMessageRequestMode, nil, nil))
	requireAnswer(t, resp, protocol.Success, "")
	require.JSONEq(t, `{"messageRequestModeMap":{"T":{"G":{"topic":"T","consumerGroup":"G","mode":"POP","popShareQueueNum":0}}}}`, string(resp.Body))
	requireAnswer(t, c.Call(protocol.NewRequest(protocol.QueryAssignment, nil, []byte("x"))), protocol.SystemError,
		"body: decode QueryAssignmentRequestBody: invalid character 'x' looking for beginning of value")
}

// TestPopMissingHeaderFields: each POP handler names the first required field it misses.
func TestPopMissingHeaderFields(t *testing.T) {
	c := servePop(t, &popFake{})
	for code, field := range map[protocol.RequestCode]string{
		protocol.PopMessage: "consumerGroup", protocol.AckMessage: "consumerGroup", protocol.ChangeMessageInvisibleTime: "consumerGroup",
		protocol.PeekMessage: "topic", protocol.Notification: "consumerGroup", protocol.PollingInfo: "consumerGroup",
	} {
		requireAnswer(t, c.Call(protocol.NewRequest(code, nil, nil)), protocol.SystemError, "the custom field <"+field+"> is null")
	}
}
