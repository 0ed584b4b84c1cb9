package cli

import (
	"net"
	"strconv"

	"github.com/rocketgo/rocketgo/internal/broker"
	"github.com/rocketgo/rocketgo/internal/config"
	"github.com/rocketgo/rocketgo/internal/store"
)

// haOptions maps the replication keys of broker.conf (brokerRole, haListenPort, haMasterAddress,
// haSendHeartbeatInterval, haHousekeepingInterval, haTransferBatchSize, haSlaveFallbehindMax,
// slaveTimeout) onto the broker's HA options.
func haOptions(cfg *config.Broker) broker.HAOptions {
	role := store.RoleAsyncMaster
	switch cfg.BrokerRole {
	case config.SyncMaster:
		role = store.RoleSyncMaster
	case config.Slave:
		role = store.RoleSlave
	}
	return broker.HAOptions{
		Role:                 role,
		ListenAddr:           net.JoinHostPort(cfg.BindAddress, strconv.Itoa(cfg.HAPort())),
		MasterAddress:        cfg.HAMasterAddress,
		HeartbeatInterval:    cfg.HASendHeartbeatInterval.Duration(),
		HousekeepingInterval: cfg.HAHousekeepingInterval.Duration(),
		TransferBatchSize:    cfg.HATransferBatchSize,
		SlaveFallbehindMax:   int64(cfg.HASlaveFallbehindMax),
		SlaveTimeout:         cfg.SlaveTimeout.Duration(),
	}
}
