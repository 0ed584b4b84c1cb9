package cluster

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func shProcess(t *testing.T, script string) *Process {
	p := newProcess("sh", "/bin/sh", t.TempDir(), []string{"-c", script})
	p.StopTimeout = 2 * time.Second
	return p
}

func TestProcessStopCleanAndRestart(t *testing.T) {
	p := shProcess(t, `echo started; trap 'echo bye; exit 0' TERM; while :; do sleep 0.05; done`)
	require.NoError(t, p.start())
	require.True(t, p.Running())
	require.Error(t, p.start(), "a second start while running must fail")
	require.Eventually(t, func() bool { return strings.Contains(p.Log(), "started") }, 5*time.Second, 10*time.Millisecond)
	require.NoError(t, p.Stop())
	require.False(t, p.Running())
	require.Contains(t, p.Log(), "bye")
	require.Equal(t, "exit status 0", p.ExitStatus())

	require.NoError(t, p.start(), "restart")
	require.Len(t, p.LogPaths(), 2, "one log per run")
	require.NoError(t, p.Kill())
	require.False(t, p.Running())
	require.NoError(t, p.Stop(), "stopping a dead process is a no-op")
}

func TestProcessStopReportsUncleanExits(t *testing.T) {
	ignores := shProcess(t, `trap '' TERM; echo ready; while :; do sleep 0.05; done`)
	require.NoError(t, ignores.start())
	require.Eventually(t, func() bool { return strings.Contains(ignores.Log(), "ready") }, 5*time.Second, 10*time.Millisecond)
	err := ignores.Stop()
	require.ErrorContains(t, err, "SIGKILL")
	require.False(t, ignores.Running())

	fails := shProcess(t, `trap 'exit 3' TERM; echo ready; while :; do sleep 0.05; done`)
	require.NoError(t, fails.start())
	require.Eventually(t, func() bool { return strings.Contains(fails.Log(), "ready") }, 5*time.Second, 10*time.Millisecond)
	require.ErrorContains(t, fails.Stop(), "exit status 3")
}

func TestChildEnvPointsHomeAtDir(t *testing.T) {
	t.Setenv("NAMESRV_ADDR", "10.0.0.1:9876")
	env := childEnv("/tmp/x")
	require.Contains(t, env, "HOME=/tmp/x")
	for _, kv := range env {
		require.False(t, strings.HasPrefix(kv, "NAMESRV_ADDR="), "NAMESRV_ADDR leaked to the child")
	}
}

func TestProcessDiedUnexpectedly(t *testing.T) {
	p := shProcess(t, `exit 2`)
	require.NoError(t, p.start())
	<-p.Exited()
	require.True(t, p.DiedUnexpectedly())
	require.Equal(t, "exit status 2", p.ExitStatus())

	q := shProcess(t, `trap 'exit 0' TERM; echo ready; while :; do sleep 0.05; done`)
	require.NoError(t, q.start())
	require.Eventually(t, func() bool { return strings.Contains(q.Log(), "ready") }, 5*time.Second, 10*time.Millisecond)
	require.NoError(t, q.Stop())
	require.False(t, q.DiedUnexpectedly())
	require.NoError(t, q.start())
	require.NoError(t, q.Kill())
	require.False(t, q.DiedUnexpectedly())
}

func TestTailFile(t *testing.T) {
	p := shProcess(t, `for i in 1 2 3 4 5; do echo line$i; done`)
	require.NoError(t, p.start())
	<-p.Exited()
	require.Equal(t, "... (2 earlier lines)\nline3\nline4\nline5", p.LogTail(3))
}
