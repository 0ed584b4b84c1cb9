package clicommon

import (
	"errors"
	"sync/atomic"
)

// Readiness is what a server command's /readyz reports: "starting" until Serving, then the
// server's own check, then "shutting down" from Stopping on.
type Readiness struct {
	check    atomic.Pointer[func() error]
	stopping atomic.Bool
}

// Serving makes Ready follow check (nil: ready).
func (r *Readiness) Serving(check func() error) { r.check.Store(&check) }

// Stopping makes Ready report "shutting down" for good.
func (r *Readiness) Stopping() { r.stopping.Store(true) }

// Ready reports nil when the server is ready for traffic, else why not.
func (r *Readiness) Ready() error {
	if r.stopping.Load() {
		return errors.New("shutting down")
	}
	check := r.check.Load()
	if check == nil {
		return errors.New("starting")
	}
	if *check == nil {
		return nil
	}
	return (*check)()
}
