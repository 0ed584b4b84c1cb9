package clicommon

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/rocketgo/rocketgo/internal/logging"
)

// TestSignals: SIGHUP while serving reopens the log and is not a stop; SIGTERM ends Wait; while Shutdown's stop
// runs, SIGINT and SIGTERM are logged and ignored and SIGHUP still reopens; Shutdown returns stop's
// error. The signals go to this test process, which catches them.
func TestSignals(t *testing.T) {
	core, logs := observer.New(zapcore.InfoLevel)
	reopened := make(chan struct{}, 4)
	s := NotifySignals(zap.New(core), func() error { reopened <- struct{}{}; return nil })

	waited := make(chan struct{})
	go func() { s.Wait(context.Background()); close(waited) }()
	require.NoError(t, syscall.Kill(syscall.Getpid(), syscall.SIGHUP))
	waitChan(t, reopened, "SIGHUP while serving reopens the log")
	require.NoError(t, syscall.Kill(syscall.Getpid(), syscall.SIGTERM))
	waitChan(t, waited, "SIGTERM ends Wait")

	stopping, release := make(chan struct{}), make(chan struct{})
	result := make(chan error, 1)
	go func() {
		result <- s.Shutdown(func() error { close(stopping); <-release; return errors.New("store: flush failed") })
	}()
	<-stopping
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		require.NoError(t, syscall.Kill(syscall.Getpid(), sig))
	}
	waitChan(t, reopened, "SIGHUP during the stop reopens the log")
	require.Eventually(t, func() bool { return logs.FilterMessageSnippet("during shutdown ignored").Len() == 2 },
		10*time.Second, 5*time.Millisecond)
	close(release)
	require.EqualError(t, <-result, "store: flush failed")
	require.Equal(t, 1, logs.FilterMessage("shutdown complete").Len())
	require.Equal(t, 1, logs.FilterMessageSnippet("shutting down on SIGTERM").Len())
}

// TestWaitEndsWithTheContext: a command run with a context stops when it ends.
func TestWaitEndsWithTheContext(t *testing.T) {
	s := NotifySignals(zap.NewNop(), nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s.Wait(ctx)
	require.NoError(t, s.Shutdown(func() error { return nil }))
}

func waitChan[T any](t *testing.T, ch <-chan T, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatal(what)
	}
}

// TestLogFlagsMerge: a flag given on the command line wins over the file's key; the others keep
// the file's value.
func TestLogFlagsMerge(t *testing.T) {
	var f LogFlags
	cmd := &cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error { return nil }}
	f.Register(cmd)
	cmd.SetArgs([]string{"--log-level", "debug", "--log-max-backups", "0", "--log-compress"})
	require.NoError(t, cmd.Execute())
	fromFile := logging.Options{Level: "warn", Levels: "store=error", Format: "json", Output: "/var/log/x.log",
		Rotate: logging.Rotation{MaxSizeMB: 64, MaxAgeDays: 3, MaxBackups: 5}}
	require.Equal(t, logging.Options{Level: "debug", Levels: "store=error", Format: "json", Output: "/var/log/x.log",
		Rotate: logging.Rotation{MaxSizeMB: 64, MaxAgeDays: 3, MaxBackups: 0, Compress: true}}, f.Merge(fromFile))
}

// TestStartupReplay: what was logged while the configuration loaded reaches the server's logger,
// named under it, filtered by its level, once.
func TestStartupReplay(t *testing.T) {
	st := NewStartup()
	st.Logger().Warn("config: unknown key ignored", zap.String("key", "bogus"))
	st.Logger().Debug("below the level")
	core, logs := observer.New(zapcore.InfoLevel)
	st.Replay(zap.New(core).Named("broker"))
	require.Equal(t, 1, logs.Len())
	e := logs.All()[0]
	require.Equal(t, "broker.config", e.LoggerName)
	require.Equal(t, "bogus", e.ContextMap()["key"])
	require.True(t, e.Caller.Defined, "the caller of the original line is kept")
	st.Replay(zap.New(core))
	require.Equal(t, 1, logs.Len(), "replayed once")
}

func TestReadiness(t *testing.T) {
	var r Readiness
	require.EqualError(t, r.Ready(), "starting")
	why := errors.New("no name server has accepted the registration yet")
	r.Serving(func() error { return why })
	require.Equal(t, why, r.Ready())
	r.Serving(nil)
	require.NoError(t, r.Ready())
	r.Stopping()
	require.EqualError(t, r.Ready(), "shutting down")
}
