package remoting

import (
	"context"

	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// Interceptor looks at a request before its handler does. A non-nil return
// is sent as the answer and the handler is skipped; nil lets the request
// through. It runs where the handler would (on the request's worker
// goroutine, with the same panic recovery) and follows Handler's rules on
// req.Body: it must not keep it, though its answer may carry slices of it.
type Interceptor func(c *Conn, req *protocol.Command) *protocol.Command

// intercepted runs an Interceptor before a Handler.
type intercepted struct {
	check Interceptor
	next  Handler
}

func (i intercepted) Serve(ctx context.Context, c *Conn, req *protocol.Command) *protocol.Command {
	if resp := i.check(c, req); resp != nil {
		return resp
	}
	return i.next.Serve(ctx, c, req)
}

// withIntercept wraps h in the server's interceptor, if it has one.
func (s *Server) withIntercept(h Handler) Handler {
	if s.opts.Intercept == nil || h == nil {
		return h
	}
	return intercepted{check: s.opts.Intercept, next: h}
}
