package broker_test

import (
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker"
	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/internal/store/storetest"
	"github.com/rocketgo/rocketgo/internal/vfs"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// fakeDisk is a file system whose used percentage the test sets.
type fakeDisk struct{ usedPct atomic.Int64 }

func (d *fakeDisk) usage(string) (total, free uint64, err error) {
	const total64 = 100 << 30
	return total64, total64 / 100 * uint64(100-d.usedPct.Load()), nil
}

// TestDiskFullRefusesSendsUntilSpaceReturns: past diskSpaceWarningLevelRatio a send gets
// SERVICE_NOT_AVAILABLE (14) with a remark naming the ratio; once space returns, sends succeed
// again without a restart, and what was stored before is intact.
func TestDiskFullRefusesSendsUntilSpaceReturns(t *testing.T) {
	disk := &fakeDisk{}
	disk.usedPct.Store(10)
	b := brokertest.Start(t, func(o *broker.Options) {
		o.Store.FS = storetest.WithDiskUsage(vfs.Default, disk.usage)
		o.Store.CleanResourceInterval = 20 * time.Millisecond
	})
	c := b.Dial(t)
	const topic = "DiskTopic"
	createTopic(t, c, topic, 1)
	send := func(i int) *protocol.Command {
		return c.Call(brokertest.SendRequest(brokertest.Msg{Topic: topic, QueueID: 0, Body: []byte("m" + strconv.Itoa(i))}))
	}
	mustSend(t, c, brokertest.SendRequest(brokertest.Msg{Topic: topic, QueueID: 0, Body: []byte("before")}))

	disk.usedPct.Store(95)
	var refused *protocol.Command
	require.Eventually(t, func() bool {
		refused = send(1)
		return refused.ResponseCode() == protocol.ServiceNotAvailable
	}, 5*time.Second, 10*time.Millisecond, "sends are refused on a full disk")
	requireCode(t, refused, protocol.ServiceNotAvailable, "diskSpaceWarningLevelRatio", "95")

	disk.usedPct.Store(10)
	require.Eventually(t, func() bool { return send(2).ResponseCode() == protocol.Success }, 5*time.Second, 10*time.Millisecond,
		"sends resume once space returns, without a restart")
	msgs := pullAll(t, c, "G_DISK", topic, 0, 0)
	require.GreaterOrEqual(t, len(msgs), 2)
	require.Equal(t, "before", string(msgs[0].Body))
}

// TestCommittedOffsetsMoveUpWithCleanup: when expired files take a queue's first messages away, a
// group's committed offset below the new minimum moves up to it, not back to 0
// (apache/rocketmq#4215).
func TestCommittedOffsetsMoveUpWithCleanup(t *testing.T) {
	b := brokertest.Start(t)
	c := b.Dial(t)
	const topic, group = "CleanOffsets", "G_CLEAN"
	createTopic(t, c, topic, 1)
	big := make([]byte, brokertest.SegmentSize*6/10) // one message per CommitLog segment
	for range 3 {
		mustSend(t, c, brokertest.SendRequest(brokertest.Msg{Topic: topic, Body: big}))
	}
	requireCode(t, c.Call(protocol.NewRequest(protocol.UpdateConsumerOffset, map[string]string{
		"consumerGroup": group, "topic": topic, "queueId": "0", "commitOffset": "0"}, nil)), protocol.Success)

	n, err := b.Store().CleanExpired(0, true, 1)
	require.NoError(t, err)
	require.Equal(t, 1, n)

	resp := c.Call(protocol.NewRequest(protocol.QueryConsumerOffset, map[string]string{
		"consumerGroup": group, "topic": topic, "queueId": "0"}, nil))
	requireCode(t, resp, protocol.Success)
	require.Equal(t, int64(1), brokertest.ExtInt(t, resp, "offset"), "moved to the new minimum, not to 0")
}
