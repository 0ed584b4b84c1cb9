package broker

import (
	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// aclCheck is the remoting interceptor that applies plain ACL to every request, as a 4.9
// broker's RPC hook does; nil when ACL is off.
func (b *Broker) aclCheck() remoting.Interceptor {
	if b.acl == nil {
		return nil
	}
	return func(c *remoting.Conn, req *protocol.Command) *protocol.Command {
		return b.acl.Intercept(c.RemoteAddr(), req)
	}
}
