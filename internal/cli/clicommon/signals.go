package clicommon

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/lifecycle"
)

// Signals is a server command's signal handling from start-up to exit. SIGINT and SIGTERM stop
// the server: the first starts the shutdown, and every later one is logged and ignored, so a
// second Ctrl-C, a supervisor's repeated SIGTERM or a terminal's SIGINT to the whole process group
// cannot cut the shutdown short and leave the store unclean (SIGKILL can, and SIGQUIT dumps the
// goroutines and exits at once: both leave the abort file, and the next start recovers
// abnormally). SIGHUP reopens the log file. SIGPIPE is ignored: a server whose log reader went away
// keeps running (its writes fail) instead of dying mid-write.
//
// Signals is installed as soon as the logger exists, before the store recovers: a SIGTERM that
// arrives during a long recovery is kept and acted on as soon as the server has started.
type Signals struct {
	ch     chan os.Signal
	lg     *zap.Logger
	reopen func() error
}

// NotifySignals starts catching the signals; reopen (may be nil) reopens the log file.
func NotifySignals(lg *zap.Logger, reopen func() error) *Signals {
	s := &Signals{ch: make(chan os.Signal, 8), lg: lg, reopen: reopen}
	signal.Notify(s.ch, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	signal.Ignore(syscall.SIGPIPE)
	return s
}

// Wait blocks until SIGINT or SIGTERM, or ctx ends, handling SIGHUP meanwhile.
func (s *Signals) Wait(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			s.lg.Info("shutting down: the command's context ended")
			return
		case sig := <-s.ch:
			if sig == syscall.SIGHUP {
				s.reopenLog()
				continue
			}
			s.lg.Info("shutting down on " + name(sig) + "; further SIGINT/SIGTERM are ignored until it is done")
			return
		}
	}
}

// Shutdown runs stop while signals keep being handled (SIGINT and SIGTERM logged and ignored,
// SIGHUP reopening the log), logs how long it took, and stops catching signals.
func (s *Signals) Shutdown(stop func() error) error {
	begin := time.Now()
	var g lifecycle.Group
	g.Go(func(done <-chan struct{}) {
		for {
			select {
			case <-done:
				return
			case sig := <-s.ch:
				s.during(sig)
			}
		}
	})
	err := stop()
	g.Stop()
	signal.Stop(s.ch)
	s.lg.Info("shutdown complete", zap.Duration("took", time.Since(begin)), zap.Error(err))
	return err
}

// during handles a signal that arrives while the server stops.
func (s *Signals) during(sig os.Signal) {
	if sig == syscall.SIGHUP {
		s.reopenLog()
		return
	}
	s.lg.Warn(name(sig) + " during shutdown ignored: the shutdown goes on until the store is closed " +
		"(SIGKILL would stop it now and leave the store to recover abnormally)")
}

func (s *Signals) reopenLog() {
	if s.reopen == nil {
		return
	}
	if err := s.reopen(); err != nil {
		s.lg.Error("SIGHUP: reopening the log file failed", zap.Error(err))
		return
	}
	s.lg.Info("SIGHUP: log file reopened")
}

func name(sig os.Signal) string {
	switch sig {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return sig.String()
}
