package mqadmin

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/admin"
	"github.com/rocketgo/rocketgo/internal/admin/admintest"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// TestSetConsumeMode: -b sets the mode on one broker, -c on every master of the cluster; each
// broker then answers it to GET_ALL_MESSAGE_REQUEST_MODE.
func TestSetConsumeMode(t *testing.T) {
	cl := admintest.Start(t, "broker-a", "broker-b")
	cl.CreateTopic(t, "ModeT", 2)
	a := admintest.Addr(cl.Brokers[0])
	out := mustRunAdmin(t, "setConsumeMode", "-b", a, "-t", "ModeT", "-g", "ModeG", "-m", "POP", "-q", "1")
	require.Equal(t, []string{"set consume mode to " + a + " success.",
		"topic[ModeT] group[ModeG] consume mode[POP] popShareQueueNum[1]"}, lines(out))

	c := admin.New(admin.Options{NamesrvAddrs: []string{cl.NamesrvAddr}}, nil)
	defer c.Close()
	modes := func(i int) map[string]body.SetMessageRequestModeRequestBody {
		w, err := c.MessageRequestModes(context.Background(), admintest.Addr(cl.Brokers[i]))
		require.NoError(t, err)
		return w.MessageRequestModeMap["ModeT"]
	}
	require.Equal(t, body.RequestModePop, modes(0)["ModeG"].Mode)
	require.Equal(t, 1, modes(0)["ModeG"].PopShareQueueNum)
	require.Empty(t, modes(1), "-b sets one broker only")

	out = mustRunAdmin(t, "setConsumeMode", "-c", admintest.ClusterName, "-t", "ModeT", "-g", "ModeG", "-m", "PULL", "-n", cl.NamesrvAddr)
	require.Len(t, lines(out), 3)
	require.Equal(t, body.RequestModePull, modes(0)["ModeG"].Mode)
	require.Equal(t, body.RequestModePull, modes(1)["ModeG"].Mode)

	for _, bad := range [][]string{
		{"setConsumeMode", "-t", "ModeT", "-g", "ModeG", "-m", "POP"},
		{"setConsumeMode", "-b", a, "-t", "ModeT", "-g", "ModeG", "-m", "PUSH"},
		{"setConsumeMode", "-b", a, "-t", "%RETRY%ModeG", "-g", "ModeG", "-m", "POP"},
	} {
		_, _, err := runAdmin(t, bad...)
		require.Error(t, err, "%v", bad)
	}
}
