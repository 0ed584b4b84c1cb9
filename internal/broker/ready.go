package broker

import (
	"errors"
	"sync/atomic"

	"github.com/rocketgo/rocketgo/internal/broker/nsreg"
)

// readiness is what Ready reports: New has recovered the store before a Broker exists, so the
// broker is ready once Start has finished and a name server has accepted a registration (or no
// name server is configured), until Close begins.
type readiness struct {
	started    atomic.Bool
	registered atomic.Bool
	closing    atomic.Bool
}

// Ready reports nil when the broker serves clients that find it through a name server: its store
// recovered, Start done, and at least one name server has accepted a registration since it
// started (it stays ready if they later fail: clients that have the route keep being served).
// Otherwise it says why not. It is what GET /readyz answers.
func (b *Broker) Ready() error {
	switch {
	case b.ready.closing.Load():
		return errors.New("shutting down")
	case !b.ready.started.Load():
		return errors.New("starting")
	case len(b.opts.NamesrvAddrs) > 0 && !b.ready.registered.Load():
		return errors.New("no name server has accepted the registration yet")
	}
	return nil
}

// registeredWith hears every successful registration.
func (b *Broker) registeredWith(res nsreg.Result) {
	b.ready.registered.Store(true)
	b.onRegistered(res)
}
