package crash

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// rawTimeout bounds one raw request.
const rawTimeout = 10 * time.Second

// rawClient speaks the remoting protocol to one broker over one kept connection (redialled after
// the broker restarts), for the requests the Go client does not offer: PULL_MESSAGE by queue
// offset without a consumer, QUERY_MESSAGE and VIEW_MESSAGE_BY_ID. (The harness's raw client dials
// a connection per request, which thousands of look-ups would turn into thousands of TIME_WAIT
// sockets.)
type rawClient struct {
	cli  *remoting.Client
	addr string
}

func newRawClient(t testing.TB, addr string) *rawClient {
	cli := remoting.NewClient(remoting.ClientOptions{RequestTimeout: rawTimeout}, nil)
	t.Cleanup(func() { _ = cli.Close() })
	return &rawClient{cli: cli, addr: addr}
}

// invoke sends one JSON-header request and returns the response.
func (r *rawClient) invoke(ctx context.Context, code protocol.RequestCode, h protocol.Header) (*protocol.Command, error) {
	ctx, cancel := context.WithTimeout(ctx, rawTimeout)
	defer cancel()
	resp, err := r.cli.Invoke(ctx, r.addr, protocol.NewHeaderRequest(code, h, nil))
	if err != nil {
		return nil, fmt.Errorf("%s %+v to %s: %w", code, h, r.addr, err)
	}
	return resp, nil
}

// queueOffset asks GET_MAX_OFFSET (the next queue offset) or GET_MIN_OFFSET of a queue.
func (r *rawClient) queueOffset(ctx context.Context, code protocol.RequestCode, topic string, queueID int) (int64, error) {
	var h protocol.Header = &protocol.GetMaxOffsetRequestHeader{Topic: topic, QueueID: int32(queueID)}
	if code == protocol.GetMinOffset {
		h = &protocol.GetMinOffsetRequestHeader{Topic: topic, QueueID: int32(queueID)}
	}
	resp, err := r.invoke(ctx, code, h)
	if err != nil {
		return 0, err
	}
	if resp.ResponseCode() != protocol.Success {
		return 0, fmt.Errorf("%s %s/%d: code %d %q", code, topic, queueID, resp.Code, resp.Remark)
	}
	var answer protocol.GetMaxOffsetResponseHeader // GET_MIN_OFFSET's answer has the same one field
	err = answer.Decode(resp.ExtFields)
	return answer.Offset, err
}

func (r *rawClient) maxOffset(ctx context.Context, topic string, queueID int) (int64, error) {
	return r.queueOffset(ctx, protocol.GetMaxOffset, topic, queueID)
}

func (r *rawClient) minOffset(ctx context.Context, topic string, queueID int) (int64, error) {
	return r.queueOffset(ctx, protocol.GetMinOffset, topic, queueID)
}

// pullResult is a decoded PULL_MESSAGE answer.
type pullResult struct {
	code            protocol.ResponseCode
	remark          string
	nextBeginOffset int64
	minOffset       int64
	maxOffset       int64
	records         []*message.MessageExt
}

// pull reads up to maxMsgs records of a queue from offset, with the SUBSCRIPTION flag ("*"), no
// commit and no suspend. Records are decoded with their body CRC checked.
func (r *rawClient) pull(ctx context.Context, group, topic string, queueID int, offset int64, maxMsgs int) (*pullResult, error) {
	resp, err := r.invoke(ctx, protocol.PullMessage, &protocol.PullMessageRequestHeader{
		ConsumerGroup: group, Topic: topic, QueueID: int32(queueID), QueueOffset: offset,
		MaxMsgNums: int32(maxMsgs), SysFlag: 4, // SUBSCRIPTION
		Subscription: protocol.Some("*"), ExpressionType: protocol.Some("TAG"),
	})
	if err != nil {
		return nil, err
	}
	res := &pullResult{code: resp.ResponseCode(), remark: resp.Remark, nextBeginOffset: -1, minOffset: -1, maxOffset: -1}
	var h protocol.PullMessageResponseHeader
	var fe *protocol.FieldError
	switch err := h.Decode(resp.ExtFields); {
	case err == nil:
		res.nextBeginOffset, res.minOffset, res.maxOffset = h.NextBeginOffset, h.MinOffset, h.MaxOffset
	case !errors.As(err, &fe) || !fe.Missing || resp.ResponseCode() == protocol.Success:
		// An error answer may carry no offsets; anything else must be well formed.
		return nil, fmt.Errorf("PULL_MESSAGE %s/%d@%d: %w", topic, queueID, offset, err)
	}
	if resp.ResponseCode() == protocol.Success {
		res.records, err = message.DecodeAll(resp.Body, true)
		if err != nil {
			return nil, fmt.Errorf("PULL_MESSAGE %s/%d@%d: decode body of %d bytes: %w", topic, queueID, offset, len(resp.Body), err)
		}
	}
	return res, nil
}

// queryByKey sends QUERY_MESSAGE for key over all time. With uniq it is a UNIQ_KEY look-up
// (_UNIQUE_KEY_QUERY=true). It returns the response code and body; QUERY_NOT_FOUND (22) is not
// an error.
func (r *rawClient) queryByKey(ctx context.Context, topic, key string, uniq bool) (protocol.ResponseCode, []byte, error) {
	h := &protocol.QueryMessageRequestHeader{Topic: topic, Key: key, MaxNum: 64,
		EndTimestamp: time.Now().Add(time.Hour).UnixMilli()}
	if uniq {
		h.UniqueKeyQuery = protocol.Some(true)
	}
	resp, err := r.invoke(ctx, protocol.QueryMessage, h)
	if err != nil {
		return 0, nil, err
	}
	switch resp.ResponseCode() {
	case protocol.Success, protocol.QueryNotFound:
		return resp.ResponseCode(), resp.Body, nil
	}
	return resp.ResponseCode(), nil, fmt.Errorf("QUERY_MESSAGE %s#%s: code %d %q", topic, key, resp.Code, resp.Remark)
}

// viewByOffset sends VIEW_MESSAGE_BY_ID for a CommitLog offset. It returns the response code and
// body; SYSTEM_ERROR (1, "can not find message by the offset") is not an error.
func (r *rawClient) viewByOffset(ctx context.Context, phyOffset int64) (protocol.ResponseCode, []byte, error) {
	resp, err := r.invoke(ctx, protocol.ViewMessageByID, &protocol.ViewMessageRequestHeader{Offset: phyOffset})
	if err != nil {
		return 0, nil, err
	}
	return resp.ResponseCode(), resp.Body, nil
}

// phyOffsetOf parses the CommitLog offset out of an offset message id.
func phyOffsetOf(offsetMsgID string) (int64, error) {
	_, off, err := message.ParseOffsetMsgID(offsetMsgID)
	if err != nil {
		return 0, fmt.Errorf("offset msgId %q: %w", offsetMsgID, err)
	}
	return off, nil
}
