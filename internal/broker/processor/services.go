package processor

import (
	"github.com/rocketgo/rocketgo/internal/broker/pull"
	"github.com/rocketgo/rocketgo/internal/broker/send"
	"github.com/rocketgo/rocketgo/internal/broker/sendback"
)

// Sender stores what producers send (send.Service).
type Sender interface {
	Send(r send.Request) (send.Result, error)
	SendBatch(r send.Request) (send.Result, error)
}

// SendBacker re-sends what consumers failed (sendback.Service).
type SendBacker interface {
	SendBack(r sendback.Request) error
}

// Puller serves pulls (pull.Service); wake answers a held pull.
type Puller interface {
	Pull(r pull.Request, wake func(pull.Result, error)) (res pull.Result, held bool, err error)
}

// Services are the protocol-neutral operations the handlers adapt to remoting.
type Services struct {
	Send     Sender
	SendBack SendBacker
	Pull     Puller
}
