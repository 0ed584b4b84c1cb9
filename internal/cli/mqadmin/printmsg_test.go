package mqadmin

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/admin/admintest"
	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// sendTagged stores n messages "body-i" with tags tag(i) on queue 0 of topic.
func sendTagged(t *testing.T, b *brokertest.Broker, topic string, n int, tag func(int) string) []admintest.Sent {
	t.Helper()
	var sent []admintest.Sent
	for i := range n {
		sent = append(sent, admintest.Send(t, b, brokertest.Msg{Topic: topic, QueueID: 0, Body: []byte("body-" + strconv.Itoa(i)),
			Tags: tag(i), Props: map[string]string{message.PropertyUniqClientMessageID: fmt.Sprintf("0A0000010000000000000000000000%02X", i)}}))
	}
	return sent
}

// TestPrintMsg: every read queue, its bounds, one line per message in Java's MessageExt text with
// the body, the end of each queue and the rule; -s filters by tag; -d false leaves bodies out; -b
// and -e narrow the range by store time.
func TestPrintMsg(t *testing.T) {
	cl := admintest.Start(t)
	b := cl.Brokers[0]
	cl.CreateTopic(t, "Printed", 2)
	sent := sendTagged(t, b, "Printed", 3, func(i int) string { return []string{"TagA", "TagB", "TagA"}[i] })

	out := mustRunAdmin(t, "printMsg", "-t", "Printed", "-n", cl.NamesrvAddr)
	ls := lines(out)
	q0 := "MessageQueue [topic=Printed, brokerName=broker-a, queueId=0]"
	q1 := "MessageQueue [topic=Printed, brokerName=broker-a, queueId=1]"
	require.Equal(t, "minOffset=0, maxOffset=3, "+q0, ls[0])
	require.Len(t, ls, 7, out)
	require.Regexp(t, `^MSGID: 0A000001000000000000000000000000 MessageExt \[brokerName=broker-a, queueId=0, storeSize=\d+, `+
		`queueOffset=0, sysFlag=0, bornTimestamp=\d+, bornHost=/127\.0\.0\.1:\d+, storeTimestamp=\d+, storeHost=/`+admintest.Addr(b)+
		`, msgId=`+sent[0].OffsetMsgID+`, commitLogOffset=\d+, bodyCRC=-?\d+, reconsumeTimes=0, preparedTransactionOffset=0, `+
		`toString\(\)=Message\{topic='Printed', flag=0, properties=\{MAX_OFFSET=3, MIN_OFFSET=0, TAGS=TagA, `+
		`UNIQ_KEY=0A000001000000000000000000000000\}, body=\[98, 111, 100, 121, 45, 48\], transactionId='null'\}\] BODY: body-0$`, ls[1])
	require.True(t, strings.HasSuffix(ls[3], " BODY: body-2"), ls[3])
	require.Equal(t, []string{
		"--------------------------------------------------------",
		"minOffset=0, maxOffset=0, " + q1,
		"--------------------------------------------------------",
	}, ls[4:], "the empty queue 1 is not read")

	// Nothing matches: the pull says so.
	out = mustRunAdmin(t, "printMsg", "-t", "Printed", "-s", "TagC", "-n", cl.NamesrvAddr)
	require.Equal(t, []string{"minOffset=0, maxOffset=3, " + q0, q0 + " no matched msg. status=NO_MATCHED_MSG, offset=3"}, lines(out)[:2])

	out = mustRunAdmin(t, "printMsg", "-t", "Printed", "-s", "TagB", "-d", "false", "-n", cl.NamesrvAddr)
	ls = lines(out)
	require.Regexp(t, `^MSGID: 0A0000010000000000000000000000(01) .*TAGS=TagB.* BODY: NOT PRINT BODY$`, ls[1])
	require.Len(t, ls, 5, out)

	mid := b.Store().MessageStoreTime("Printed", 0, 1)
	out = mustRunAdmin(t, "printMsg", "-t", "Printed", "-b", strconv.FormatInt(mid, 10), "-n", cl.NamesrvAddr)
	require.Equal(t, "minOffset=1, maxOffset=3, "+q0, lines(out)[0])

	_, errOut, err := runAdmin(t, "printMsg", "-t", "Printed", "-b", "yesterday", "-n", cl.NamesrvAddr)
	require.Error(t, err)
	require.Contains(t, errOut, `timestamp "yesterday" is neither`)
	_, errOut, err = runAdmin(t, "printMsg", "-t", "Printed", "-c", "GBK", "-n", cl.NamesrvAddr)
	require.Error(t, err)
	require.Contains(t, errOut, `charset "GBK" is not supported`)
}

// TestPrintMsgByQueue: one queue; nothing printed without -p; -p with -d prints the messages and
// bodies; -f counts the tags, most frequent first.
func TestPrintMsgByQueue(t *testing.T) {
	cl := admintest.Start(t)
	b := cl.Brokers[0]
	cl.CreateTopic(t, "ByQueue", 2)
	sendTagged(t, b, "ByQueue", 5, func(i int) string { return []string{"TagA", "TagB", "TagA", "", "TagA"}[i] })

	require.Empty(t, mustRunAdmin(t, "printMsgByQueue", "-t", "ByQueue", "-a", "broker-a", "-i", "0", "-n", cl.NamesrvAddr))
	out := mustRunAdmin(t, "printMsgByQueue", "-t", "ByQueue", "-a", "broker-a", "-i", "0", "-p", "true", "-d", "true",
		"-f", "true", "-n", cl.NamesrvAddr)
	ls := lines(out)
	require.Len(t, ls, 7, out)
	for i := range 5 {
		require.True(t, strings.HasPrefix(ls[i], fmt.Sprintf("MSGID: 0A0000010000000000000000000000%02X MessageExt [brokerName=broker-a, queueId=0,", i)), ls[i])
		require.True(t, strings.HasSuffix(ls[i], " BODY: body-"+strconv.Itoa(i)), ls[i])
	}
	require.Equal(t, []string{fmt.Sprintf("Tag: %-30s Count: 3", "TagA"), fmt.Sprintf("Tag: %-30s Count: 1", "TagB")}, ls[5:])

	out = mustRunAdmin(t, "printMsgByQueue", "-t", "ByQueue", "-a", "broker-a", "-i", "0", "-p", "true", "-s", "TagB", "-n", cl.NamesrvAddr)
	require.Regexp(t, `^MSGID: 0A0000010000000000000000000000(01) .* BODY: NOT PRINT BODY$`, strings.TrimSuffix(out, "\n"))
	_, errOut, err := runAdmin(t, "printMsgByQueue", "-t", "ByQueue", "-a", "broker-a", "-n", cl.NamesrvAddr)
	require.Error(t, err)
	require.Contains(t, errOut, `required flag(s) "queueId" not set`)
}

// TestQueryMsgByOffset: the message at a queue offset, printed as queryMsgById prints; an offset
// past the queue's end is an error saying so.
func TestQueryMsgByOffset(t *testing.T) {
	cl := admintest.Start(t)
	b := cl.Brokers[0]
	cl.CreateTopic(t, "ByOffset", 1)
	sent := sendTagged(t, b, "ByOffset", 3, func(int) string { return "T" })
	out := mustRunAdmin(t, "queryMsgByOffset", "-t", "ByOffset", "-b", "broker-a", "-i", "0", "-o", "1", "-f", "UTF-8", "-n", cl.NamesrvAddr)
	ls := lines(out)
	require.Equal(t, "OffsetID:            "+sent[1].OffsetMsgID, ls[0])
	require.Equal(t, "Queue Offset:        1", ls[5])
	require.Contains(t, ls, "Message Body:        body-1")
	require.Equal(t, "WARN: No Consumer", ls[len(ls)-1])

	_, errOut, err := runAdmin(t, "queryMsgByOffset", "-t", "ByOffset", "-b", "broker-a", "-i", "0", "-o", "3", "-n", cl.NamesrvAddr)
	require.Error(t, err)
	require.Contains(t, errOut, "no message at offset 3 of MessageQueue [topic=ByOffset, brokerName=broker-a, queueId=0]: NO_NEW_MSG")
}
