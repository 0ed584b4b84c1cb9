package processor

import (
	"github.com/rocketgo/rocketgo/internal/broker/send"
)

// Sender stores what producers send (send.Service).
type Sender interface {
	Send(r send.Request) (send.Result, error)
	SendBatch(r send.Request) (send.Result, error)
}

// Services are the protocol-neutral operations the handlers adapt to remoting.
type Services struct {
	Send Sender
}
