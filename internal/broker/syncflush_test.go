package broker_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker"
	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// Under SYNC_FLUSH a send is answered by the group commit once its record is on disk (the
// handler leaves it pending): pipelined sends on one connection are each answered once, SUCCESS,
// with the queue offsets after the first's (in any order: requests run concurrently), and all of
// them durable.
func TestSyncFlushPipelinedSends(t *testing.T) {
	b := brokertest.Start(t, func(o *broker.Options) { o.Store.FlushType = store.SyncFlush })
	c := b.Dial(t)
	const topic, n = "SyncFlushPipelined", 64
	first := mustSend(t, c, brokertest.SendV2Request(brokertest.Msg{Topic: topic, QueueID: 1, Body: []byte("create")}))
	opaques := make([]int32, n)
	for i := range opaques {
		m := brokertest.Msg{Topic: topic, QueueID: 1, Body: []byte(fmt.Sprint("sync-", i))}
		opaques[i] = c.Send(brokertest.SendV2Request(m))
	}
	var offsets []int64
	for _, op := range opaques {
		resp := c.Await(op)
		requireCode(t, resp, protocol.Success)
		offsets = append(offsets, brokertest.ExtInt(t, resp, "queueOffset"))
	}
	slices.Sort(offsets)
	for i, off := range offsets {
		require.Equal(t, first.queueOffset+int64(i)+1, off)
	}
	require.Equal(t, b.Store().CommitLogMaxOffset(), b.Store().CommitLogFlushedOffset(),
		"every answered send is durable")
	c.Sync()
}
