package processor

import (
	"errors"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// Access checks, after a service has read a record by offset or id, that the request may see it:
// the topic of the record is known only once it has been read (acl.Service). A denial is an
// error with a Remark, answered as the ACL answers every refusal.
type Access interface {
	MayRead(remoteAddr string, req *protocol.Command, topic string) error
	MayWrite(remoteAddr string, req *protocol.Command, topic string) error
}

// mayRead is the check the services make on the topic of what they read for req: nil (no check)
// when ACL is off.
func (p *Processor) mayRead(c *remoting.Conn, req *protocol.Command) func(topic string) error {
	if p.opts.Access == nil {
		return nil
	}
	return func(topic string) error { return refusal(p.opts.Access.MayRead(remoteAddr(c), req, topic)) }
}

// mayWrite is mayRead for a record the request writes on behalf of its producer.
func (p *Processor) mayWrite(c *remoting.Conn, req *protocol.Command) func(topic string) error {
	if p.opts.Access == nil {
		return nil
	}
	return func(topic string) error { return refusal(p.opts.Access.MayWrite(remoteAddr(c), req, topic)) }
}

// refusal is the outcome of an ACL denial: SYSTEM_ERROR with the AclException text, as a 4.9
// broker answers every request its ACL refuses.
func refusal(err error) error {
	if err == nil {
		return nil
	}
	var d interface{ Remark() string }
	if errors.As(err, &d) {
		return &outcome.Error{Kind: outcome.SystemError, Remark: d.Remark()}
	}
	return &outcome.Error{Kind: outcome.SystemError, Remark: err.Error()}
}
