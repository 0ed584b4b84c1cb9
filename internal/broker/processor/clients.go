package processor

import (
	"github.com/rocketgo/rocketgo/internal/broker/client"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// Clients calls clients connected over remoting: the per-protocol half of the services' calls to
// clients (rebalance notifications, relays). Server-initiated requests are JSON, as Java sends
// them.
type Clients struct{}

// NotifyConsumerIDsChanged tells a consumer to rebalance (NOTIFY_CONSUMER_IDS_CHANGED, oneway).
func (Clients) NotifyConsumerIDsChanged(ch client.Channel, group string) error {
	return ch.InvokeOneway(protocol.NewHeaderRequest(protocol.NotifyConsumerIdsChanged,
		&protocol.NotifyConsumerIdsChangedRequestHeader{ConsumerGroup: group}, nil))
}
