package broker_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker"
	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// TestPopStateOnSlaveAfterMasterLoss: a slave holds what POP needs (the revive log in its
// replicated CommitLog, the pop and revive offsets in its copy of consumerOffset.json, the request
// modes in its copy of messageRequestMode.json). After the master is lost, a broker started as
// master on the slave's store gives back exactly the messages popped and not acknowledged, with
// reconsumeTimes 1, and pops nothing twice.
func TestPopStateOnSlaveAfterMasterLoss(t *testing.T) {
	ns := startNamesrv(t)
	fast := func(o *broker.Options) { o.Pop.ReviveInterval = 50 * time.Millisecond }
	master := brokertest.StartWith(t, haBroker(t, ns, store.RoleAsyncMaster, fast))
	slaveOpts := haBroker(t, ns, store.RoleSlave, fast)
	slave := brokertest.StartWith(t, slaveOpts)
	require.Eventually(t, slave.HAClient().Connected, haWait, 5*time.Millisecond)

	mc := master.Dial(t)
	const topic, group = "PopHA", "G_POP_HA"
	createTopic(t, mc, topic, 2)
	sendN(t, mc, topic, 2, "ha", 6, "")
	requireCode(t, setMode(t, mc, topic, group, body.RequestModePop, 0), protocol.Success)
	p := doPop(t, mc, popArgs{group: group, topic: topic, queueID: -1, invisible: 3 * time.Second})
	require.Len(t, p.msgs, 6)
	var unacked []string
	for i, m := range p.msgs {
		if i%2 == 0 {
			ack(t, mc, m, group)
		} else {
			unacked = append(unacked, string(m.Body))
		}
	}

	sc := slave.Dial(t)
	require.Eventually(t, func() bool {
		return slave.Store().CommitLogMaxOffset() == master.Store().CommitLogMaxOffset()
	}, haWait, 10*time.Millisecond, "the revive log reaches the slave")
	for q := int32(0); q < 2; q++ {
		require.Eventually(t, func() bool { off, ok := committedOffset(t, sc, group, topic, q); return ok && off == 3 },
			haWait, 10*time.Millisecond, "the pop offset of queue %d reaches the slave", q)
	}
	require.Eventually(t, func() bool {
		resp := sc.Call(protocol.NewRequest(protocol.GetAllMessageRequestMode, nil, nil))
		w, err := body.DecodeMessageRequestModeSerializeWrapper(resp.Body)
		return err == nil && w.MessageRequestModeMap[topic][group].Mode == body.RequestModePop
	}, haWait, 10*time.Millisecond, "the request mode reaches the slave")

	require.NoError(t, master.Close())
	require.NoError(t, slave.Close())
	promoted := slaveOpts
	promoted.HA.Role, promoted.BrokerID, promoted.HA.MasterAddress = store.RoleAsyncMaster, 0, ""
	promoted.ListenAddr = freeAddr(t)
	promoted.BrokerAddr = promoted.ListenAddr
	nb := brokertest.StartWith(t, promoted)
	nc := nb.Dial(t)
	require.Equal(t, 2, nb.PopOutstanding(), "the checkpoints with unacknowledged messages")
	back := popUntil(t, nc, popArgs{group: group, topic: topic, queueID: -1, invisible: time.Minute}, 3)
	require.ElementsMatch(t, unacked, bodies(back))
	for _, m := range back {
		require.Equal(t, int32(1), m.ReconsumeTimes)
	}
	none := doPop(t, nc, popArgs{group: group, topic: topic, queueID: -1, invisible: time.Minute, poll: time.Second})
	require.Equal(t, protocol.PollingTimeout, none.code, "popped twice: %v", none.bodies())
	resp := nc.Call(protocol.NewRequest(protocol.GetAllMessageRequestMode, nil, nil))
	w, err := body.DecodeMessageRequestModeSerializeWrapper(resp.Body)
	require.NoError(t, err)
	require.Equal(t, body.RequestModePop, w.MessageRequestModeMap[topic][group].Mode)
}
