package remoting_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/internal/remoting/remotingtest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// TestPanickingCallbackIsContained: an async call's callback that panics is logged; the client
// and its connection keep working.
func TestPanickingCallbackIsContained(t *testing.T) {
	_, addr := startEcho(t, remoting.ServerOptions{}, nil)
	cli := newClient(t, remoting.ClientOptions{})
	ran := make(chan struct{})
	cli.InvokeAsync(ctxTimeout(t), addr, protocol.NewRequest(codeEcho, nil, nil), func(*protocol.Command, error) {
		close(ran)
		panic("callback bug")
	})
	<-ran
	resp, err := cli.Invoke(ctxTimeout(t), addr, protocol.NewRequest(codeEcho, nil, []byte("still")))
	require.NoError(t, err)
	require.Equal(t, "still", string(resp.Body))
}

// TestPanickingConnectHookIsContained: a panic in OnConnect is logged and the connection is
// served.
func TestPanickingConnectHookIsContained(t *testing.T) {
	_, addr := startEcho(t, remoting.ServerOptions{OnConnect: func(*remoting.Conn) { panic("hook bug") }}, nil)
	raw := remotingtest.Dial(t, addr)
	require.Equal(t, protocol.Success, raw.RoundTrip(&protocol.Command{Code: int32(codeEcho), Opaque: 1}).ResponseCode())
}
