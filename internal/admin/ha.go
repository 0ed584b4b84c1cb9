package admin

import (
	"context"
	"fmt"

	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// BrokerHAStatus returns a broker's replication status (GET_BROKER_HA_STATUS): a master's
// connected slaves, or a slave's view of its master.
func (c *Client) BrokerHAStatus(ctx context.Context, addr string) (*body.HARuntimeInfo, error) {
	resp, err := c.invoke(ctx, addr, protocol.NewRequest(protocol.GetBrokerHAStatus, nil, nil))
	if err != nil {
		return nil, err
	}
	info, err := body.DecodeHARuntimeInfo(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("admin: %s: %w", addr, err)
	}
	return info, nil
}
