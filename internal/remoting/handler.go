package remoting

import (
	"context"
	"errors"
	"strconv"

	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// Handler answers requests.
type Handler interface {
	// Serve answers req. A nil return writes nothing now; the handler (or
	// whoever it handed the request to, e.g. long polling) later calls
	// c.WriteResponse, and may keep req meanwhile. Answers to oneway
	// requests are dropped. ctx is done when the connection closes.
	//
	// req.Body is a slice of a pooled frame buffer. Once Serve has returned
	// a response (not nil), the buffer is reused as soon as that response
	// has been written: neither the handler nor anything it handed req.Body
	// (or slices of it) to may use them after returning; copy what must
	// outlive the call. The response itself may carry slices of req.Body.
	// Strings (ext fields, remark) are copies and may be kept.
	Serve(ctx context.Context, c *Conn, req *protocol.Command) *protocol.Command
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, c *Conn, req *protocol.Command) *protocol.Command

// Serve calls f.
func (f HandlerFunc) Serve(ctx context.Context, c *Conn, req *protocol.Command) *protocol.Command {
	return f(ctx, c, req)
}

// Errors returned by connections and clients.
var (
	ErrConnClosed   = errors.New("remoting: connection closed")
	ErrClientClosed = errors.New("remoting: client closed")
	ErrServerClosed = errors.New("remoting: server closed")
	// ErrAnswered: WriteResponse for a request that was answered already
	// (or never received).
	ErrAnswered = errors.New("remoting: request already answered")
)

// Remarks of the answers the transport itself gives, as Java words them.
const (
	overloadRemark = "[OVERLOAD]system busy, start flow control for a while"
)

func notSupportedRemark(code protocol.RequestCode) string {
	return " request type " + strconv.Itoa(int(code)) + " not supported"
}
