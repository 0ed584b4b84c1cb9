package mqadmin

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/admin/admintest"
	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// TestQueryMsgByKey: every message carrying the key, from every broker of the topic, with its
// id, queue and offset in Java's columns; the time range narrows the search; nothing found
// fails.
func TestQueryMsgByKey(t *testing.T) {
	cl := admintest.Start(t, "broker-a", "broker-b")
	cl.CreateTopic(t, "Keyed", 4)
	const uniq = "0A0000010000000000000000000B0001"
	admintest.Send(t, cl.Brokers[0], brokertest.Msg{Topic: "Keyed", QueueID: 3, Body: []byte("1"), Keys: "order-9 other",
		Props: map[string]string{message.PropertyUniqClientMessageID: uniq}})
	b := admintest.Send(t, cl.Brokers[1], brokertest.Msg{Topic: "Keyed", QueueID: 1, Body: []byte("2"), Keys: "order-9"})
	admintest.Send(t, cl.Brokers[1], brokertest.Msg{Topic: "Keyed", QueueID: 1, Body: []byte("3"), Keys: "order-10"})
	storeA := cl.Brokers[0].Store().MessageStoreTime("Keyed", 3, 0)
	storeB := cl.Brokers[1].Store().MessageStoreTime("Keyed", 1, 0)

	out := mustRunAdmin(t, "queryMsgByKey", "-t", "Keyed", "-k", "order-9", "-n", cl.NamesrvAddr)
	ls := lines(out)
	require.Len(t, ls, 3, out)
	require.Equal(t, fmt.Sprintf("%-50s %4s %40s", "#Message ID", "#QID", "#Offset"), ls[0])
	rows := ls[1:]
	if storeB < storeA {
		rows[0], rows[1] = rows[1], rows[0]
	}
	require.Equal(t, fmt.Sprintf("%-50s %4d %40d", uniq, 3, 0), rows[0])
	// Without a UNIQ_KEY of its own (a broker may add one) a message is listed by its offset id.
	idB := b.OffsetMsgID
	if _, off, err := message.ParseOffsetMsgID(b.OffsetMsgID); err == nil {
		if m := cl.Brokers[1].Store().LookMessageByOffset(off); m != nil && m.UniqKey() != "" {
			idB = m.UniqKey()
		}
	}
	require.Equal(t, fmt.Sprintf("%-50s %4d %40d", idB, 1, 0), rows[1])

	out = mustRunAdmin(t, "queryMsgByKey", "-t", "Keyed", "-k", "order-9", "-m", "1", "-c", admintest.ClusterName,
		"-n", cl.NamesrvAddr)
	require.Len(t, lines(out), 3, "RocketMQ 5's -m and -c are taken (-m 1 is asked of each broker, each has one):\n%s", out)

	future := strconv.FormatInt(max(storeA, storeB)+60_000, 10)
	_, errOut, err := runAdmin(t, "queryMsgByKey", "-t", "Keyed", "-k", "order-9", "-b", future, "-n", cl.NamesrvAddr)
	require.Error(t, err)
	require.Contains(t, errOut, `no message with key "order-9" in topic Keyed`)

	_, errOut, err = runAdmin(t, "queryMsgByKey", "-t", "Keyed", "-k", "missing", "-n", cl.NamesrvAddr)
	require.Error(t, err)
	require.Contains(t, errOut, `no message with key "missing"`)
}
