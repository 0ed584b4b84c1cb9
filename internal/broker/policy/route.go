package policy

import (
	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// Replica is the broker's place in master/slave replication, as far as pulls care.
type Replica struct {
	// Slave is set on a slave broker.
	Slave bool
	// SlaveReadEnable lets consumers read from slaves (slaveReadEnable).
	SlaveReadEnable bool
}

// PullRoute applies Java 4.9's master/slave rules to a pull's status and picks the broker id the
// consumer pulls from next (docs/protocol.md §2.6, docs/ha.md):
//   - with slaveReadEnable, the group's whichBrokerWhenConsumeSlowly (a slave) when the data read
//     lies further behind the log's end than the memory ratio (onDisk), else the group's brokerId;
//     without it, the master;
//   - on a slave, PullOffsetMoved becomes PullRetryImmediately with the group's brokerId: a slave
//     never moves a consumer's offset (offsetCheckInSlave=false).
func PullRoute(k outcome.Kind, r Replica, g body.SubscriptionGroupConfig, onDisk bool) (outcome.Kind, int64) {
	if r.Slave && k == outcome.PullOffsetMoved {
		return outcome.PullRetryImmediately, g.BrokerID
	}
	if !r.SlaveReadEnable {
		return k, body.MasterID
	}
	if onDisk {
		return k, g.WhichBrokerWhenConsumeSlowly
	}
	return k, g.BrokerID
}
