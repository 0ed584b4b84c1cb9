package mqadmin

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/admin/admintest"
	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
)

// TestTopicStatus: one line per queue of every broker, with min and max offset and the last
// message's store time.
func TestTopicStatus(t *testing.T) {
	cl := admintest.Start(t, "broker-a", "broker-b")
	cl.CreateTopic(t, "Stat", 2)
	for range 3 {
		admintest.Send(t, cl.Brokers[1], brokertest.Msg{Topic: "Stat", QueueID: 1, Body: []byte("x")})
	}
	last := cl.Brokers[1].Store().MessageStoreTime("Stat", 1, 2)

	out := mustRunAdmin(t, "topicStatus", "-t", "Stat", "-n", cl.NamesrvAddr)
	require.Equal(t, []string{
		"#Broker Name                      #QID  #Min Offset           #Max Offset             #Last Updated",
		"broker-a                          0     0                     0                       ",
		"broker-a                          1     0                     0                       ",
		"broker-b                          0     0                     0                       ",
		"broker-b                          1     0                     3                       " + humanTime(last),
	}, lines(out))
	require.Regexp(t, `\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}$`, lines(out)[4])

	_, errOut, err := runAdmin(t, "topicStatus", "-t", "Nope", "-n", cl.NamesrvAddr)
	require.Error(t, err)
	require.Contains(t, errOut, "TOPIC_NOT_EXIST (17)")
}
