package mqadmin

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/admin/admintest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// TestProducerConnection: each connection of the producer group on the topic's brokers, sorted by
// client id, in 4.9's columns; a group with nobody online fails with Java's message. The broker
// side (GET_PRODUCER_CONNECTION_LIST, 204) is served from branch java2 on.
func TestProducerConnection(t *testing.T) {
	cl := admintest.Start(t, "broker-a", "broker-b")
	a, b := cl.Brokers[0], cl.Brokers[1]
	admintest.SkipUnlessServed(t, a, protocol.GetProducerConnectionList,
		&protocol.GetProducerConnectionListRequestHeader{ProducerGroup: "Probe"})
	cl.CreateTopic(t, "PTopic", 2)
	p2 := admintest.ProducerHeartbeat(t, a, "10.0.0.2@2", "PGroup")
	p1 := admintest.ProducerHeartbeat(t, b, "10.0.0.1@1", "PGroup")
	admintest.ProducerHeartbeat(t, a, "10.0.0.3@3", "OtherGroup")

	out := mustRunAdmin(t, "producerConnection", "-g", "PGroup", "-t", "PTopic", "-n", cl.NamesrvAddr)
	require.Equal(t, []string{
		"0001  10.0.0.1@1                       " + fmt.Sprintf("%-22s", p1.LocalAddr()) + " JAVA     V4_9_8",
		"0002  10.0.0.2@2                       " + fmt.Sprintf("%-22s", p2.LocalAddr()) + " JAVA     V4_9_8",
	}, lines(out))

	p1.Close()
	p2.Close()
	require.Eventually(t, func() bool {
		_, errOut, err := runAdmin(t, "producerConnection", "-g", "PGroup", "-t", "PTopic", "-n", cl.NamesrvAddr)
		return err != nil && strings.Contains(errOut, "Not found the producer group connection")
	}, admintest.WaitFor, 20*time.Millisecond)

	_, errOut, err := runAdmin(t, "producerConnection", "-g", "PGroup", "-n", cl.NamesrvAddr)
	require.Error(t, err)
	require.Contains(t, errOut, `"topic" not set`)
}
