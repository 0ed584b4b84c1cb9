package ops

import (
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// silentNamesrv accepts connections and reads them without ever answering: a name server that
// hangs. A broker's unregistration from it waits for its 3 s timeout, which makes the broker's
// shutdown last long enough to be watched.
func silentNamesrv(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { _, _ = io.Copy(io.Discard, c) }()
		}
	}()
	t.Cleanup(func() { _ = ln.Close(); <-done })
	return ln.Addr().String()
}

// TestSecondSignalDuringShutdown: SIGTERM starts the broker's shutdown; a SIGINT and another
// SIGTERM while it runs are logged and ignored, /readyz answers 503 "shutting down" and /healthz
// 200 meanwhile, and the shutdown runs to its end: exit status 0, the store closed, no abort file;
// the next start recovers on the normal path with every acknowledged message.
func TestSecondSignalDuringShutdown(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ns := namesrvNode(t, filepath.Join(dir, "namesrv"), nil)
	startNamesrv(t, ns)
	br := brokerNode(t, filepath.Join(dir, "broker"), "broker-sig", ns.addr()+";"+silentNamesrv(t),
		map[string]string{"registerBrokerTimeoutMills": "2000"})
	b := startBroker(t, br)
	topic := "OpsSecondSignal"
	createTopic(t, ns.addr(), br.addr(), topic)
	s := startSender(t, ns.addr(), topic)
	s.waitAcked(t, 100)

	begin := time.Now()
	b.signal(t, syscall.SIGTERM)
	b.waitLog(t, "shutting down on SIGTERM", logTimeout)
	code, body, err := get(br.url("/readyz"))
	require.NoError(t, err, "the probes stay up while the broker stops")
	require.Equal(t, http.StatusServiceUnavailable, code)
	require.Equal(t, "not ready: shutting down\n", body)
	code, _, err = get(br.url("/healthz"))
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, code, "live while shutting down")
	b.signal(t, syscall.SIGINT)
	b.waitLog(t, "SIGINT during shutdown ignored", logTimeout)
	b.signal(t, syscall.SIGTERM)
	b.waitLog(t, "SIGTERM during shutdown ignored", logTimeout)
	require.NoError(t, b.wait(t, stopTimeout), "exit status after three signals")
	logStop(t, "broker with a hung name server, three signals", time.Since(begin))
	s.stop()

	log := b.log()
	require.NotEmpty(t, lines(log, "message store closed"))
	require.NotEmpty(t, lines(log, "shutdown complete"))
	require.Less(t, strings.Index(log, "SIGTERM during shutdown ignored"), strings.Index(log, "message store closed"),
		"the signals arrived before the store was closed")
	require.False(t, br.abortExists(t), "abort file left behind")

	br.props["namesrvAddr"] = ns.addr()
	writeConf(t, br.conf, br.props)
	b2 := startBroker(t, br)
	requireCleanRecovery(t, b2.log())
	requireAllStored(t, s.ackedIDs(), storedIDs(t, br.addr(), topic))
	logStop(t, "idle broker on SIGTERM", b2.stop(t, syscall.SIGTERM))
}

// TestStopOnSIGINTAndSIGTERM: each server stops cleanly on SIGINT as on SIGTERM (the broker first,
// as an operator should), and a broker stopped with SIGINT restarts on the normal path.
func TestStopOnSIGINTAndSIGTERM(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ns := namesrvNode(t, filepath.Join(dir, "namesrv"), nil)
	n := startNamesrv(t, ns)
	br := brokerNode(t, filepath.Join(dir, "broker"), "broker-int", ns.addr(), nil)
	b := startBroker(t, br)
	logStop(t, "idle broker on SIGINT", b.stop(t, syscall.SIGINT))
	require.NotEmpty(t, lines(b.log(), "shutting down on SIGINT"))
	require.NotEmpty(t, lines(b.log(), "message store closed"))
	require.False(t, br.abortExists(t))
	b2 := startBroker(t, br)
	requireCleanRecovery(t, b2.log())
	logStop(t, "idle broker on SIGTERM", b2.stop(t, syscall.SIGTERM))
	logStop(t, "name server on SIGINT", n.stop(t, syscall.SIGINT))
	require.NotEmpty(t, lines(n.log(), "shutting down on SIGINT"))
	n2 := startNamesrv(t, ns)
	logStop(t, "name server on SIGTERM", n2.stop(t, syscall.SIGTERM))
	require.NotEmpty(t, lines(n2.log(), "shutdown complete"))
}
