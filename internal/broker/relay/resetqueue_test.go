package relay

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

func ptr[T any](v T) *T { return &v }

// TestResetOneQueue: RocketMQ 5's reset of one queue moves that queue only, to the offset asked
// for or the timestamp's, back or forth, with nobody online too; online members hear of that queue
// alone.
func TestResetOneQueue(t *testing.T) {
	e := newEnv(t)
	before := e.offsets[0]
	table, err := e.svc.ResetOffset(ResetRequest{Topic: "T", Group: "G", QueueID: ptr[int32](1), Offset: ptr[int64](9)})
	require.NoError(t, err)
	q1 := body.MessageQueue{Topic: "T", BrokerName: "broker-a", QueueID: 1}
	require.Equal(t, map[body.MessageQueue]int64{q1: 9}, table)
	require.Equal(t, int64(9), e.offsets[1], "forward without force: one queue is set as asked")
	require.Equal(t, before, e.offsets[0], "queue 0 is untouched")
	require.Len(t, e.clients.notices, 2, "both members")
	require.Equal(t, map[body.MessageQueue]int64{q1: 9}, e.clients.notices[0].Offsets)

	table, err = e.svc.ResetOffset(ResetRequest{Topic: "T", Group: "Offline", QueueID: ptr[int32](0), Timestamp: 400,
		Offset: ptr[int64](-1)})
	require.NoError(t, err, "nobody online is fine for one queue")
	require.Equal(t, int64(4), table[body.MessageQueue{Topic: "T", BrokerName: "broker-a", QueueID: 0}], "offset -1: by time")
	require.Len(t, e.clients.notices, 2)

	table, err = e.svc.ResetOffset(ResetRequest{Topic: "T", Group: "G", QueueID: ptr[int32](0), Timestamp: -1})
	require.NoError(t, err)
	require.Equal(t, int64(10), table[body.MessageQueue{Topic: "T", BrokerName: "broker-a", QueueID: 0}], "negative time: the end")

	table, err = e.svc.ResetOffset(ResetRequest{Topic: "T", Group: "G", QueueID: ptr[int32](-1), Timestamp: -1, Force: true})
	require.NoError(t, err)
	require.Len(t, table, 2, "queue -1 is the whole topic")
}

func TestResetOneQueueRefusals(t *testing.T) {
	e := newEnv(t)
	for _, tc := range []struct {
		r    ResetRequest
		want error
	}{
		{ResetRequest{Topic: "U", Group: "G", QueueID: ptr[int32](0)}, &outcome.Error{Kind: outcome.TopicNotExist, Remark: "Topic U does not exist"}},
		{ResetRequest{Topic: "T", Group: "G", QueueID: ptr[int32](2)}, &outcome.Error{Kind: outcome.SystemError, Remark: "queue 2 of topic T does not exist"}},
		{ResetRequest{Topic: "T", Group: "G", QueueID: ptr[int32](0), Offset: ptr[int64](1)},
			&outcome.Error{Kind: outcome.SystemError, Remark: "Target offset 1 not in consume queue range [2-10]"}},
		{ResetRequest{Topic: "T", Group: "G", QueueID: ptr[int32](0), Offset: ptr[int64](11)},
			&outcome.Error{Kind: outcome.SystemError, Remark: "Target offset 11 not in consume queue range [2-10]"}},
	} {
		_, err := e.svc.ResetOffset(tc.r)
		require.Equal(t, tc.want, err)
	}
	require.Empty(t, e.clients.notices)
}

// TestResetOffsetNames: a reset commits offsets under its topic and group, so a name that is not
// valid, and a group the broker does not have, are refused before anything is committed (one
// queue's reset used to commit an offset for any group string, growing consumerOffset.json with
// every request).
func TestResetOffsetNames(t *testing.T) {
	e := newEnv(t)
	for _, r := range []ResetRequest{
		{Topic: "T", Group: "Nobody", QueueID: ptr[int32](0)},
		{Topic: "T", Group: "bad\ngroup", QueueID: ptr[int32](0)},
		{Topic: "T", Group: strings.Repeat("g", 300), QueueID: ptr[int32](0)},
		{Topic: "T@G", Group: "G", QueueID: ptr[int32](0)},
		{Topic: "T", Group: "bad group", Timestamp: -1},
	} {
		_, err := e.svc.ResetOffset(r)
		require.Error(t, err, "%+v", r)
		k, _ := outcome.Of(err)
		require.Contains(t, []outcome.Kind{outcome.GroupNotExist, outcome.TopicNotExist}, k, "%v", err)
	}
	_, err := e.svc.ResetOffset(ResetRequest{Topic: "T", Group: "Nobody", QueueID: ptr[int32](0)})
	require.Equal(t, &outcome.Error{Kind: outcome.GroupNotExist, Remark: "Group Nobody does not exist"}, err)
	require.Empty(t, e.clients.notices)
}
