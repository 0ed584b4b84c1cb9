package metrics

import (
	"errors"
	"io"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
)

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(body)
}

// TestHealthProbes: /healthz answers 200 whenever the server serves; /readyz answers 503
// "starting" until a readiness function is set, then follows it.
func TestHealthProbes(t *testing.T) {
	s := NewServer("127.0.0.1:0", prometheus.NewRegistry(), nil)
	require.NoError(t, s.Start())
	defer s.Close()
	base := "http://" + s.Addr()

	code, body := get(t, base+LivenessPath)
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, "ok\n", body)
	code, body = get(t, base+ReadinessPath)
	require.Equal(t, http.StatusServiceUnavailable, code)
	require.Equal(t, "not ready: starting\n", body)

	var why atomic.Pointer[error]
	s.SetReadiness(func() error {
		if e := why.Load(); e != nil {
			return *e
		}
		return nil
	})
	code, body = get(t, base+ReadinessPath)
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, "ready\n", body)

	shutting := errors.New("shutting down")
	why.Store(&shutting)
	code, body = get(t, base+ReadinessPath)
	require.Equal(t, http.StatusServiceUnavailable, code)
	require.Equal(t, "not ready: shutting down\n", body)
	code, _ = get(t, base+LivenessPath)
	require.Equal(t, http.StatusOK, code, "live while shutting down")

	resp, err := http.Post(base+ReadinessPath, "text/plain", nil)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
}
