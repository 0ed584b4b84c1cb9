package processor

import (
	"context"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// queryAssignment serves QUERY_ASSIGNMENT: the body names the topic, group, client, strategy
// and message model; the answer's body is the client's queues with their request mode (a null
// set tells the client to keep what it has).
func (p *Processor) queryAssignment(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	q, err := body.DecodeQueryAssignmentRequestBody(req.Body)
	if err != nil {
		return nil, outcome.Errorf(outcome.SystemError, "%v", err)
	}
	assigned, ok, err := p.svc.Assign.Assign(*q)
	if err != nil {
		return nil, err
	}
	if !ok {
		return withBody(req, []byte("{}")), nil // fastjson leaves the null set out
	}
	return withJSONBody(req, body.QueryAssignmentResponseBody{MessageQueueAssignments: assigned})
}

// setMessageRequestMode serves SET_MESSAGE_REQUEST_MODE.
func (p *Processor) setMessageRequestMode(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	m, err := body.DecodeSetMessageRequestModeRequestBody(req.Body)
	if err != nil {
		return nil, outcome.Errorf(outcome.SystemError, "%v", err)
	}
	if err := p.svc.Assign.SetMode(*m); err != nil {
		return nil, err
	}
	return success(req), nil
}

// getAllMessageRequestMode serves GET_ALL_MESSAGE_REQUEST_MODE (a slave's metadata sync, tools).
func (p *Processor) getAllMessageRequestMode(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	return withJSONBody(req, p.svc.Assign.All())
}
