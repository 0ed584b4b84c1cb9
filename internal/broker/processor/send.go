package processor

import (
	"context"
	"net/netip"
	"sync"
	"unsafe"

	"github.com/rocketgo/rocketgo/internal/broker/send"
	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// sendMessage serves SEND_MESSAGE, SEND_MESSAGE_V2 and SEND_BATCH_MESSAGE (and a SEND_MESSAGE
// flagged batch).
func (p *Processor) sendMessage(_ context.Context, c *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.SendMessageRequestHeader
	if err := h.DecodeSend(req.RequestCode(), req.ExtFields); err != nil {
		return nil, err
	}
	r := sendRequest(&h, c, req.Body)
	r.Owner = c.ID()
	if req.RequestCode() == protocol.SendBatchMessage || h.Batch.Or(false) {
		res, err := p.svc.Send.SendBatch(r)
		if err != nil {
			return nil, err
		}
		return p.sendResponse(req, &res), nil
	}
	reply := sendReplies.Get().(*sendReply)
	reply.p, reply.c, reply.req = p, c, req
	res, pending, err := p.svc.Send.SendAsync(r, reply)
	if pending {
		return nil, nil // reply answers once the group commit has the message on disk
	}
	reply.release()
	if err != nil {
		return nil, err
	}
	return p.sendResponse(req, &res), nil
}

// sendReply answers a send that waited for its group commit, on the connection it came on.
type sendReply struct {
	p   *Processor
	c   *remoting.Conn
	req *protocol.Command
}

var sendReplies = sync.Pool{New: func() any { return new(sendReply) }}

// Sent is send.Answerer.
func (r *sendReply) Sent(res send.Result, err error) {
	var resp *protocol.Command
	if err == nil {
		resp = r.p.sendResponse(r.req, &res)
	}
	c := r.c
	resp = respond(r.req, resp, err)
	r.release()
	_ = c.WriteResponseLast(resp) // the request's frame is recycled once the answer is written
}

func (r *sendReply) release() {
	*r = sendReply{}
	sendReplies.Put(r)
}

// sendRequest is the send a header and body describe.
func sendRequest(h *protocol.SendMessageRequestHeader, c *remoting.Conn, body []byte) send.Request {
	return send.Request{
		ProducerGroup:         h.ProducerGroup,
		Topic:                 h.Topic,
		DefaultTopic:          h.DefaultTopic,
		DefaultTopicQueueNums: h.DefaultTopicQueueNums,
		QueueID:               h.QueueID,
		SysFlag:               h.SysFlag,
		BornTimestamp:         h.BornTimestamp,
		BornHost:              bornHost(c),
		Flag:                  h.Flag,
		Properties:            h.Properties.Or(""),
		ReconsumeTimes:        h.ReconsumeTimes.Or(0),
		UnitMode:              h.UnitMode.Or(false),
		MaxReconsumeTimes:     h.MaxReconsumeTimes.Or(-1),
		Body:                  body,
	}
}

// sendResponse answers a stored send: the status's code (SUCCESS, or a flush or replication
// timeout), the offset message ids, the queue and offset, the region and the trace switch. The
// answer is a pooled command that the transport releases once written.
func (p *Processor) sendResponse(req *protocol.Command, res *send.Result) *protocol.Command {
	a := getSendAnswer()
	resp := &a.cmd
	protocol.ResetResponse(resp, req, responseCode(res.Status), res.Remark)
	a.ids = res.Put.AppendMsgIDs(a.ids[:0])
	protocol.SendMessageResponseHeader{
		MsgID:        unsafe.String(unsafe.SliceData(a.ids), len(a.ids)), // valid until Release
		QueueID:      res.QueueID,
		QueueOffset:  res.Put.QueueOffset,
		MsgRegion:    protocol.Some(p.opts.RegionID),
		TraceOn:      protocol.Some(p.opts.TraceOn),
		RecallHandle: recallHandle(req.RequestCode(), res.RecallHandle),
	}.Encode(&resp.ExtFields)
	return resp
}

// sendAnswer is a pooled send response: the command, its ext fields' room and the text of its
// message ids, reused once the transport has written the answer and called Release.
type sendAnswer struct {
	cmd protocol.Command
	ids []byte
}

// maxPooledIDs bounds the message id text a pooled answer keeps (a batch's can be long).
const maxPooledIDs = 4 << 10

var sendAnswers sync.Pool // *sendAnswer

// getSendAnswer returns a pooled answer whose Release puts it back.
func getSendAnswer() *sendAnswer {
	if a, ok := sendAnswers.Get().(*sendAnswer); ok {
		return a
	}
	a := &sendAnswer{ids: make([]byte, 0, 64)}
	a.cmd.Release = a.release
	return a
}

func (a *sendAnswer) release() {
	if cap(a.ids) <= maxPooledIDs {
		sendAnswers.Put(a)
	}
}

// recallHandle is the handle a send answers with: only a single send's (not a batch's, as Java).
func recallHandle(code protocol.RequestCode, handle string) protocol.Opt[string] {
	if handle == "" || code == protocol.SendBatchMessage {
		return protocol.Opt[string]{}
	}
	return protocol.Some(handle)
}

// bornHost is the producer's address as the connection sees it.
func bornHost(c *remoting.Conn) netip.AddrPort {
	if c == nil {
		return netip.AddrPortFrom(netip.IPv4Unspecified(), 0)
	}
	if ap := c.RemoteAddrPort(); ap.IsValid() {
		return ap
	}
	return netip.AddrPortFrom(netip.IPv4Unspecified(), 0)
}

// sendReplyMessage serves SEND_REPLY_MESSAGE and SEND_REPLY_MESSAGE_V2: a consumer's reply to a
// request, pushed to the requester. A reply pushed is SUCCESS with the stored offsets, or msgId
// "0" and offset 0 when replies are not stored (as Java answers, so that clients decode it); one
// the requester did not get is SYSTEM_ERROR saying why, stored or not.
func (p *Processor) sendReplyMessage(ctx context.Context, c *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.SendMessageRequestHeader
	if err := h.DecodeSend(req.RequestCode(), req.ExtFields); err != nil {
		return nil, err
	}
	res, err := p.svc.Send.Reply(ctx, sendRequest(&h, c, req.Body))
	if err != nil {
		return nil, err
	}
	if !res.Pushed {
		return protocol.NewResponse(req, protocol.SystemError, res.PushRemark), nil
	}
	if res.Stored {
		return p.sendResponse(req, &res.Result), nil
	}
	resp := success(req)
	protocol.SendMessageResponseHeader{MsgID: "0", QueueID: res.QueueID, MsgRegion: protocol.Some(p.opts.RegionID),
		TraceOn: protocol.Some(p.opts.TraceOn)}.Encode(&resp.ExtFields)
	return resp, nil
}
