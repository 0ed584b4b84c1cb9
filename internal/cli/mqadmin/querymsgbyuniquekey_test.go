package mqadmin

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/admin/admintest"
	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// TestQueryMsgByUniqueKey: the message a producer got this id for, in full, found through the
// topic's route; an unknown id fails.
func TestQueryMsgByUniqueKey(t *testing.T) {
	cl := admintest.Start(t, "broker-a", "broker-b")
	cl.CreateTopic(t, "Uniq", 2)
	const id = "7F0000010A0B0000000000000000ABCD"
	sent := admintest.Send(t, cl.Brokers[1], brokertest.Msg{Topic: "Uniq", QueueID: 1, Body: []byte("payload"),
		Props: map[string]string{message.PropertyUniqClientMessageID: id}})
	admintest.Send(t, cl.Brokers[0], brokertest.Msg{Topic: "Uniq", QueueID: 1, Body: []byte("another"),
		Props: map[string]string{message.PropertyUniqClientMessageID: "7F0000010A0B0000000000000000ABCE"}})

	out := mustRunAdmin(t, "queryMsgByUniqueKey", "-i", id, "-t", "Uniq", "-n", cl.NamesrvAddr)
	ls := lines(out)
	require.Len(t, ls, 15, out)
	require.Equal(t, "OffsetID:            "+sent.OffsetMsgID, ls[0])
	require.Equal(t, "Topic:               Uniq", ls[1])
	require.Equal(t, "Queue ID:            1", ls[4])
	require.Equal(t, "Store Host:          "+admintest.Addr(cl.Brokers[1]), ls[11])
	require.Regexp(t, `^Properties:          \{.*UNIQ_KEY=`+id+`[,}]`, ls[13])
	require.Equal(t, "Message Body:        payload", ls[14])

	_, errOut, err := runAdmin(t, "queryMsgByUniqueKey", "-i", "7F0000010A0B0000000000000000FFFF", "-t", "Uniq", "-n", cl.NamesrvAddr)
	require.Error(t, err)
	require.Contains(t, errOut, `no message with unique key "7F0000010A0B0000000000000000FFFF" in topic Uniq`)
}
