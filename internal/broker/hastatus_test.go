package broker_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

func haStatus(t *testing.T, c *brokertest.Conn) *body.HARuntimeInfo {
	t.Helper()
	resp := c.Call(protocol.NewRequest(protocol.GetBrokerHAStatus, nil, nil))
	require.EqualValues(t, protocol.Success, resp.Code, resp.Remark)
	info, err := body.DecodeHARuntimeInfo(resp.Body)
	require.NoError(t, err)
	return info
}

// GET_BROKER_HA_STATUS on a master lists its slave with the offset it acknowledged; on the slave
// it names the master it follows.
func TestHAStatusOfMasterAndSlave(t *testing.T) {
	ns := startNamesrv(t)
	master := brokertest.StartWith(t, haBroker(t, ns, store.RoleAsyncMaster))
	mc := master.Dial(t)
	info := haStatus(t, mc)
	require.True(t, info.Master)
	require.Empty(t, info.HAConnectionInfo, "no slave yet")

	slave := brokertest.StartWith(t, haBroker(t, ns, store.RoleSlave))
	const topic = "HA_STATUS"
	createTopic(t, mc, topic, 1)
	for i := range 20 {
		resp := send(t, mc, topic, 0, "message "+strconv.Itoa(i))
		require.EqualValues(t, protocol.Success, resp.Code, resp.Remark)
	}
	end := master.Store().CommitLogMaxOffset()
	require.Eventually(t, func() bool {
		info = haStatus(t, mc)
		return len(info.HAConnectionInfo) == 1 && info.HAConnectionInfo[0].SlaveAckOffset == end
	}, haWait, 10*time.Millisecond, "the slave acknowledges the master's end")
	require.Equal(t, end, info.MasterCommitLogMaxOffset)
	require.EqualValues(t, 1, info.InSyncSlaveNums)
	conn := info.HAConnectionInfo[0]
	require.Zero(t, conn.Diff)
	require.True(t, conn.InSync)
	require.Equal(t, end, conn.TransferFromWhere)
	require.Contains(t, conn.Addr, "127.0.0.1:")

	sc := slave.Dial(t)
	s := haStatus(t, sc)
	require.False(t, s.Master)
	require.Empty(t, s.HAConnectionInfo)
	require.Equal(t, master.HAService().Addr().String(), s.HAClientRuntimeInfo.MasterAddr)
	require.True(t, s.HAClientRuntimeInfo.IsActivated)
	require.Equal(t, end, s.HAClientRuntimeInfo.MaxOffset)
	require.Positive(t, s.HAClientRuntimeInfo.LastReadTimestamp)
	require.Positive(t, s.HAClientRuntimeInfo.LastWriteTimestamp)

	// A slave that leaves is no longer listed.
	require.NoError(t, slave.Close())
	require.Eventually(t, func() bool { return len(haStatus(t, mc).HAConnectionInfo) == 0 }, haWait, 10*time.Millisecond)
	require.EqualValues(t, 0, haStatus(t, mc).InSyncSlaveNums)
}
