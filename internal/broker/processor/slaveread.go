package processor

import (
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// pullRoute applies Java 4.9's master/slave rules to a pull's response code and picks the
// suggestWhichBrokerId the client pulls from next (protocol.md §2.6, docs/ha.md):
//   - with slaveReadEnable, the group's whichBrokerWhenConsumeSlowly (a slave) when the data read
//     lies further behind the log's end than the memory ratio ("on disk"), else the group's
//     brokerId; without it, the master;
//   - on a slave, PULL_OFFSET_MOVED becomes PULL_RETRY_IMMEDIATELY with the group's brokerId: a
//     slave never moves a consumer's offset (offsetCheckInSlave=false), whose nextBeginOffset the
//     store left at the requested offset.
func (p *Processor) pullRoute(code protocol.ResponseCode, gc body.SubscriptionGroupConfig, onDisk bool) (protocol.ResponseCode, int64) {
	suggest := int64(body.MasterID)
	if p.opts.SlaveReadEnable {
		suggest = gc.BrokerID
		if onDisk {
			suggest = gc.WhichBrokerWhenConsumeSlowly
		}
	}
	if p.opts.Slave && code == protocol.PullOffsetMoved {
		return protocol.PullRetryImmediately, gc.BrokerID
	}
	return code, suggest
}
