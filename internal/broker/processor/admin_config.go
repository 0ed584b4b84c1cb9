package processor

import (
	"context"

	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// getBrokerConfig serves GET_BROKER_CONFIG: the configuration as Java-properties text, with ext
// version = its DataVersion JSON.
func (p *Processor) getBrokerConfig(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	version, err := body.Marshal(p.svc.Config.Version())
	if err != nil {
		return nil, err
	}
	resp := withHeader(req, protocol.GetBrokerConfigResponseHeader{Version: string(version)})
	if text := p.svc.Config.Text(); text != "" {
		resp.Body = []byte(text)
	}
	return resp, nil
}

// updateBrokerConfig serves UPDATE_BROKER_CONFIG: the runtime keys are applied, other changes
// refused (configview).
func (p *Processor) updateBrokerConfig(_ context.Context, c *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	if err := p.svc.Config.Update(string(req.Body), remoteAddr(c)); err != nil {
		return nil, err
	}
	return success(req), nil
}
