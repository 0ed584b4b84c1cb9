package admin

import (
	"context"
	"fmt"

	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// SetMessageRequestMode sets a consumer group's request mode of a topic on one broker
// (SET_MESSAGE_REQUEST_MODE): PULL, or POP shared with popShareQueueNum neighbours.
func (c *Client) SetMessageRequestMode(ctx context.Context, addr string, m body.SetMessageRequestModeRequestBody) error {
	data, err := body.Marshal(m)
	if err != nil {
		return fmt.Errorf("admin: encode message request mode: %w", err)
	}
	_, err = c.invoke(ctx, addr, protocol.NewRequest(protocol.SetMessageRequestMode, nil, data))
	return err
}

// SetMessageRequestModeInCluster sets the mode on every master of a cluster and returns the
// addresses that took it, sorted, with the joined errors of the others.
func (c *Client) SetMessageRequestModeInCluster(ctx context.Context, cluster string, m body.SetMessageRequestModeRequestBody) ([]string, error) {
	masters, err := c.clusterMasters(ctx, cluster)
	if err != nil {
		return nil, err
	}
	return c.eachBroker(masters, func(addr string) error { return c.SetMessageRequestMode(ctx, addr, m) })
}

// MessageRequestModes reads every mode a broker keeps (GET_ALL_MESSAGE_REQUEST_MODE).
func (c *Client) MessageRequestModes(ctx context.Context, addr string) (*body.MessageRequestModeSerializeWrapper, error) {
	resp, err := c.invoke(ctx, addr, protocol.NewRequest(protocol.GetAllMessageRequestMode, nil, nil))
	if err != nil {
		return nil, err
	}
	return body.DecodeMessageRequestModeSerializeWrapper(resp.Body)
}
