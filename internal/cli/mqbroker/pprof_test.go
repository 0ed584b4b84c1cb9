package mqbroker

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPprofFollowsBindAddress(t *testing.T) {
	require.Equal(t, "127.0.0.1:6060", pprofListenAddr(":6060", "127.0.0.1"))
	require.Equal(t, ":6060", pprofListenAddr(":6060", "0.0.0.0"))
	require.Equal(t, "10.0.0.1:6060", pprofListenAddr("10.0.0.1:6060", "127.0.0.1"), "a host of its own wins")
	require.Equal(t, "", pprofListenAddr("", "127.0.0.1"))
}
