package processor_test

import (
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/broker/processor"
	"github.com/rocketgo/rocketgo/internal/broker/query"
	"github.com/rocketgo/rocketgo/internal/broker/sendback"
	"github.com/rocketgo/rocketgo/internal/broker/transaction"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// fakeAccess refuses every topic but allowed, as acl.Service does: an error with a Remark.
type fakeAccess struct {
	allowed string
	mu      sync.Mutex
	asked   []accessCall
}

type accessCall struct {
	Write bool
	Code  protocol.RequestCode
	Topic string
}

type aclDenial struct{ msg string }

func (d aclDenial) Error() string  { return d.msg }
func (d aclDenial) Remark() string { return "org.apache.rocketmq.acl.common.AclException: " + d.msg }

func (a *fakeAccess) may(write bool, remote string, req *protocol.Command, topic string) error {
	a.mu.Lock()
	a.asked = append(a.asked, accessCall{write, req.RequestCode(), topic})
	allowed := a.allowed
	a.mu.Unlock()
	if remote == "" {
		return errors.New("no remote address")
	}
	if topic != allowed {
		return aclDenial{"No default permission for topic:" + topic}
	}
	return nil
}

func (a *fakeAccess) allow(topic string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.allowed = topic
}

func (a *fakeAccess) calls() []accessCall {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]accessCall(nil), a.asked...)
}

func (a *fakeAccess) MayRead(remote string, req *protocol.Command, topic string) error {
	return a.may(false, remote, req, topic)
}

func (a *fakeAccess) MayWrite(remote string, req *protocol.Command, topic string) error {
	return a.may(true, remote, req, topic)
}

const deniedRemark = "org.apache.rocketmq.acl.common.AclException: No default permission for topic:RecordTopic"

// TestReadsByOffsetAskAccess: with ACL on, the handlers of reads by offset or id hand their
// service the check of the topic of the record read, and a refusal is the ACL's answer.
func TestReadsByOffsetAskAccess(t *testing.T) {
	f := &fakes{a: answers{record: []byte("rec")}}
	access := &fakeAccess{allowed: "Other"}
	c := serveWith(t, f, processor.Options{Access: access})

	view := protocol.NewHeaderRequest(protocol.ViewMessageByID, &protocol.ViewMessageRequestHeader{Offset: 64}, nil)
	requireAnswer(t, c.Call(view), protocol.SystemError, deniedRemark)
	direct := protocol.NewHeaderRequest(protocol.ConsumeMessageDirectly,
		&protocol.ConsumeMessageDirectlyResultRequestHeader{ConsumerGroup: "G", MsgID: protocol.Some("M")}, nil)
	requireAnswer(t, c.Call(direct), protocol.SystemError, deniedRemark)
	require.Equal(t, []accessCall{{false, protocol.ViewMessageByID, recordTopic},
		{false, protocol.ConsumeMessageDirectly, recordTopic}}, access.calls())

	access.allow(recordTopic)
	resp := c.Call(view)
	requireAnswer(t, resp, protocol.Success, "")
	require.Equal(t, []byte("rec"), resp.Body)

	// The services that read themselves get the checks bound to the request.
	c.Call(sendBack())
	sb := f.last().(sendback.Request)
	require.NoError(t, sb.MayRead(recordTopic))
	require.Equal(t, &outcome.Error{Kind: outcome.SystemError,
		Remark: "org.apache.rocketmq.acl.common.AclException: No default permission for topic:Secret"}, sb.MayRead("Secret"))
	c.Call(protocol.NewHeaderRequest(protocol.QueryMessage, &protocol.QueryMessageRequestHeader{Topic: "T", Key: "k", MaxNum: 1}, nil))
	require.NoError(t, f.last().(query.KeyQuery).MayRead(recordTopic))
	c.Call(protocol.NewHeaderRequest(protocol.EndTransaction, &protocol.EndTransactionRequestHeader{ProducerGroup: "PG",
		CommitOrRollback: 8, MsgID: "M"}, nil))
	end := f.last().(transaction.EndRequest)
	require.NoError(t, end.MayWrite(recordTopic))
	require.Error(t, end.MayWrite("Secret"))
	calls := access.calls()
	require.Equal(t, accessCall{true, protocol.EndTransaction, "Secret"}, calls[len(calls)-1])
}

// TestNoAccessNoChecks: with ACL off the services get no check at all.
func TestNoAccessNoChecks(t *testing.T) {
	f := &fakes{a: answers{record: []byte("rec")}}
	c := serve(t, f)
	c.Call(sendBack())
	require.Nil(t, f.last().(sendback.Request).MayRead)
	requireAnswer(t, c.Call(protocol.NewHeaderRequest(protocol.ViewMessageByID, &protocol.ViewMessageRequestHeader{Offset: 64}, nil)),
		protocol.Success, "")
}

func sendBack() *protocol.Command {
	return protocol.NewHeaderRequest(protocol.ConsumerSendMsgBack, &protocol.ConsumerSendMsgBackRequestHeader{Offset: 99, Group: "G"}, nil)
}
