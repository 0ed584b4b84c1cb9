package namesrv

import (
	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// The handlers of the admin requests that change the name server's own state: a broker group's
// write permission in the routes and the configuration. adminWriteAllowlist guards those that
// write (guard.go).

func (p *processor) wipeWritePermOfBroker(c *remoting.Conn, req *protocol.Command) (reply, error) {
	var h protocol.WipeWritePermOfBrokerRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return reply{}, err
	}
	if err := validateBrokerName("brokerName", h.BrokerName); err != nil {
		return reply{}, err
	}
	n := p.routes.WipeWritePerm(h.BrokerName)
	p.lg.Info("write permission of broker wiped", zap.String("brokerName", h.BrokerName), zap.Int("topics", n),
		zap.String("remote", c.RemoteAddr()))
	return reply{header: &protocol.WipeWritePermOfBrokerResponseHeader{WipeTopicCount: int32(n)}}, nil
}

func (p *processor) addWritePermOfBroker(c *remoting.Conn, req *protocol.Command) (reply, error) {
	var h protocol.AddWritePermOfBrokerRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return reply{}, err
	}
	if err := validateBrokerName("brokerName", h.BrokerName); err != nil {
		return reply{}, err
	}
	n := p.routes.AddWritePerm(h.BrokerName)
	p.lg.Info("write permission of broker added", zap.String("brokerName", h.BrokerName), zap.Int("topics", n),
		zap.String("remote", c.RemoteAddr()))
	return reply{header: &protocol.AddWritePermOfBrokerResponseHeader{AddTopicCount: int32(n)}}, nil
}

func (p *processor) getNamesrvConfig(_ *remoting.Conn, _ *protocol.Command) (reply, error) {
	return reply{body: []byte(p.live.text())}, nil
}

// updateNamesrvConfig applies the Java-properties body; an empty body changes nothing, as in Java.
func (p *processor) updateNamesrvConfig(c *remoting.Conn, req *protocol.Command) (reply, error) {
	if len(req.Body) == 0 {
		return reply{}, nil
	}
	props, err := body.ParseProperties(req.Body)
	if err != nil {
		return reply{}, badBodyError{err}
	}
	changed, err := p.live.update(props)
	if err != nil {
		return reply{}, err
	}
	p.lg.Info("name server configuration updated", zap.Strings("changed", changed), zap.String("remote", c.RemoteAddr()))
	return reply{}, nil
}
