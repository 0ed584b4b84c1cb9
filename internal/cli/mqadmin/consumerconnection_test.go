package mqadmin

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/admin/admintest"
)

// TestConsumerConnection: each online member with its address, language and version, then the
// subscriptions and the group's consume settings; an offline group fails with
// CONSUMER_NOT_ONLINE.
func TestConsumerConnection(t *testing.T) {
	cl := admintest.Start(t)
	b := cl.Brokers[0]
	cl.CreateTopic(t, "Conn", 2)
	c1 := admintest.Heartbeat(t, b, "10.0.0.2@2", "ConnGroup", map[string]string{"Conn": "TagA || TagB"})
	c2 := admintest.Heartbeat(t, b, "10.0.0.1@1", "ConnGroup", map[string]string{"Conn": "TagA || TagB"})
	cl.WaitRoute(t, "%RETRY%ConnGroup")

	out := mustRunAdmin(t, "consumerConnection", "-g", "ConnGroup", "-n", cl.NamesrvAddr)
	require.Equal(t, []string{
		"001  10.0.0.1@1                       " + fmt.Sprintf("%-22s", c2.LocalAddr()) + " JAVA     V4_9_8",
		"002  10.0.0.2@2                       " + fmt.Sprintf("%-22s", c1.LocalAddr()) + " JAVA     V4_9_8",
		"",
		"Below is subscription:",
		"001  Topic: Conn                                     SubExpression: TagA || TagB",
		"",
		"ConsumeType: CONSUME_PASSIVELY",
		"MessageModel: CLUSTERING",
		"ConsumeFromWhere: CONSUME_FROM_LAST_OFFSET",
	}, lines(out))

	c1.Close()
	c2.Close()
	require.Eventually(t, func() bool {
		_, errOut, err := runAdmin(t, "consumerConnection", "-g", "ConnGroup", "-n", cl.NamesrvAddr)
		return err != nil && strings.Contains(errOut, "GET_CONSUMER_CONNECTION_LIST: CONSUMER_NOT_ONLINE (206): ") &&
			strings.Contains(errOut, "ConnGroup")
	}, admintest.WaitFor, 20*time.Millisecond)
}
