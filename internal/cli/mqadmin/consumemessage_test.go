package mqadmin

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/admin/admintest"
	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
)

// bodies lists the BODY of each message line of consumeMessage's output, and the other lines.
func bodies(out string) (msgs, other []string) {
	for _, l := range lines(out) {
		if i := strings.LastIndex(l, " BODY: "); strings.HasPrefix(l, "MSGID: ") && i > 0 {
			msgs = append(msgs, l[i+len(" BODY: "):])
		} else {
			other = append(other, l)
		}
	}
	return msgs, other
}

// TestConsumeMessage: -c bounds the messages provided across the topic's queues, in queue order;
// -b -i -o reads one queue from an offset; an offset past the queue says so; Java's flag rules
// hold.
func TestConsumeMessage(t *testing.T) {
	cl := admintest.Start(t)
	b := cl.Brokers[0]
	cl.CreateTopic(t, "Consumed", 2)
	for i, q := range []int32{0, 0, 0, 1, 1} {
		admintest.Send(t, b, brokertest.Msg{Topic: "Consumed", QueueID: q, Body: []byte{'m', byte('0' + i)}})
	}

	msgs, other := bodies(mustRunAdmin(t, "consumeMessage", "-t", "Consumed", "-c", "4", "-n", cl.NamesrvAddr))
	require.Equal(t, []string{"m0", "m1", "m2", "m3"}, msgs)
	require.Equal(t, []string{"Consume ok", "The older 1 message of the 1 queue will be provided", "Consume ok"}, other)

	msgs, other = bodies(mustRunAdmin(t, "consumeMessage", "-t", "Consumed", "-n", cl.NamesrvAddr))
	require.Equal(t, []string{"m0", "m1", "m2", "m3", "m4"}, msgs)
	require.Equal(t, []string{"Consume ok", "Consume ok"}, other)

	msgs, _ = bodies(mustRunAdmin(t, "consumeMessage", "-t", "Consumed", "-b", "broker-a", "-i", "0", "-o", "1", "-g", "G1",
		"-n", cl.NamesrvAddr))
	require.Equal(t, []string{"m1", "m2"}, msgs)
	out := mustRunAdmin(t, "consumeMessage", "-t", "Consumed", "-b", "broker-a", "-i", "0", "-o", "1", "-c", "1", "-n", cl.NamesrvAddr)
	msgs, other = bodies(out)
	require.Equal(t, []string{"m1"}, msgs)
	require.Equal(t, []string{"The oldler 1 message will be provided", "Consume ok"}, other)
	out = mustRunAdmin(t, "consumeMessage", "-t", "Consumed", "-b", "broker-a", "-i", "0", "-o", "9", "-n", cl.NamesrvAddr)
	require.Equal(t, []string{"MessageQueue [topic=Consumed, brokerName=broker-a, queueId=0] no matched msg, offset=9"}, lines(out))

	for args, want := range map[string]string{
		"-i 0":             "please set the brokerName before queueId",
		"-b x -o 1":        "please set queueId before offset",
		"-c 0":             "please input a positive messageNumber",
		"-s 9999999999999": "please set the beginTimestamp before now",
	} {
		_, errOut, err := runAdmin(t, append([]string{"consumeMessage", "-t", "Consumed", "-n", cl.NamesrvAddr}, strings.Fields(args)...)...)
		require.Error(t, err, args)
		require.Contains(t, errOut, want, args)
	}
}
