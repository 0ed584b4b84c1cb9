package mqadmin

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/admin/admintest"
)

var sendLine = regexp.MustCompile(`^(broker-[ab])\s+(\d+)\s+SEND_OK\s+([0-9A-F]{32})$`)

// TestSendMessage: to a chosen queue, with keys and tags, the message is stored as sent and the
// line says where and under which id; without a queue one of the route's writable queues is
// taken; a topic without a route is created from TBW102; -m true also writes the message trace.
func TestSendMessage(t *testing.T) {
	cl := admintest.Start(t, "broker-a", "broker-b")
	cl.CreateTopic(t, "Sent", 2)

	out := mustRunAdmin(t, "sendMessage", "-t", "Sent", "-p", "hello there", "-k", "k1 k2", "-c", "TagX", "-b", "broker-b", "-i", "1",
		"-n", cl.NamesrvAddr)
	ls := lines(out)
	require.Regexp(t, `^#Broker Name\s+#QID\s+#Send Result\s+#MsgId$`, ls[0])
	m := sendLine.FindStringSubmatch(ls[1])
	require.NotNil(t, m, ls[1])
	require.Equal(t, []string{"broker-b", "1"}, m[1:3])
	admintest.WaitIndexed(t, cl.Brokers[1], "Sent", m[3])
	out = mustRunAdmin(t, "queryMsgById", "-i", m[3], "-t", "Sent", "-f", "UTF-8", "-n", cl.NamesrvAddr)
	require.Contains(t, out, "Tags:                [TagX]\nKeys:                [k1 k2]\nQueue ID:            1\n")
	require.Contains(t, out, "Message Body:        hello there\n")
	require.Contains(t, out, "WAIT=true")

	out = mustRunAdmin(t, "sendMessage", "-t", "Sent", "-p", "anywhere", "-n", cl.NamesrvAddr)
	require.Regexp(t, sendLine, lines(out)[1])

	out = mustRunAdmin(t, "sendMessage", "-t", "NewTopic", "-p", "first", "-m", "true", "-n", cl.NamesrvAddr)
	m = sendLine.FindStringSubmatch(lines(out)[1])
	require.NotNil(t, m, out)
	cl.WaitRoute(t, "NewTopic")
	cl.WaitRoute(t, "RMQ_SYS_TRACE_TOPIC")
	out = mustRunAdmin(t, "printMsg", "-t", "RMQ_SYS_TRACE_TOPIC", "-n", cl.NamesrvAddr)
	require.Contains(t, out, " BODY: Pub\x01")
	require.Contains(t, out, "\x01NewTopic\x01"+m[3]+"\x01null\x01null\x01")
	require.Contains(t, out, "KEYS="+m[3])

	_, errOut, err := runAdmin(t, "sendMessage", "-t", "Sent", "-p", "x", "-i", "1", "-n", cl.NamesrvAddr)
	require.Error(t, err)
	require.Contains(t, errOut, "broker name must be set if the queue is chosen")
	_, errOut, err = runAdmin(t, "sendMessage", "-t", "Sent", "-p", "x", "-b", "broker-z", "-i", "0", "-n", cl.NamesrvAddr)
	require.Error(t, err)
	require.True(t, strings.Contains(errOut, "broker-z"), errOut)
}
