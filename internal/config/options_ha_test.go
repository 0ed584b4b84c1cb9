package config

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/store"
)

// TestHAOptionsFromConf maps brokerRole and the ha* keys onto the broker's HA options.
func TestHAOptionsFromConf(t *testing.T) {
	path := writeConf(t, `
brokerName = broker-a
brokerId = 2
brokerRole = SLAVE
brokerIP2 = 10.9.9.9
listenPort = 10921
haMasterAddress = 10.0.0.5:10912
haSendHeartbeatInterval = 1000
haHousekeepingInterval = 7000
haTransferBatchSize = 65536
haSlaveFallbehindMax = 1048576
slaveTimeout = 2500
slaveReadEnable = true
`)
	cfg, err := LoadBroker(path, nil, nil)
	require.NoError(t, err)
	bo, err := cfg.Options()
	require.NoError(t, err)
	o := bo.Broker
	require.True(t, o.IsSlave())
	require.EqualValues(t, 2, o.BrokerID)
	require.True(t, o.SlaveReadEnable)
	require.Equal(t, store.RoleSlave, o.HA.Role)
	require.True(t, strings.HasSuffix(o.HA.ListenAddr, ":10922"), "haListenPort defaults to listenPort+1: %s", o.HA.ListenAddr)
	require.Equal(t, "10.9.9.9:10922", o.HAServerAddr)
	require.Equal(t, "10.0.0.5:10912", o.HA.MasterAddress)
	require.Equal(t, time.Second, o.HA.HeartbeatInterval)
	require.Equal(t, 7*time.Second, o.HA.HousekeepingInterval)
	require.Equal(t, 65536, o.HA.TransferBatchSize)
	require.EqualValues(t, 1<<20, o.HA.SlaveFallbehindMax)
	require.Equal(t, 2500*time.Millisecond, o.HA.SlaveTimeout)

	for role, want := range map[string]store.Role{"ASYNC_MASTER": store.RoleAsyncMaster, "SYNC_MASTER": store.RoleSyncMaster} {
		cfg, err := LoadBroker(writeConf(t, "brokerRole = "+role+"\n"), nil, nil)
		require.NoError(t, err)
		bo, err := cfg.Options()
		require.NoError(t, err)
		require.Equal(t, want, bo.Broker.HA.Role, role)
		require.False(t, bo.Broker.IsSlave(), role)
	}
}
