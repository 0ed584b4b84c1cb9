package processor

import (
	"context"
	"strconv"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/broker/client"
	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// heartbeat registers a client's producer and consumer groups (HEART_BEAT).
func (p *Processor) heartbeat(_ context.Context, c *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	hb, err := body.DecodeHeartbeatData(req.Body)
	if err != nil {
		return nil, fail(protocol.SystemError, "bad heartbeat body: %v", err)
	}
	ch := client.ClientChannel{Channel: c, ClientID: hb.ClientID, Language: req.Language, Version: int32(req.Version)}
	for _, cd := range hb.ConsumerDataSet {
		if cfg, ok := p.Groups.FindOrCreate(cd.GroupName); ok {
			perm := body.PermRead | body.PermWrite
			p.Topics.CreateTopicInSendMessageBack(systopic.Retry(cd.GroupName), cfg.RetryQueueNums, perm, 0)
		}
		if p.Consumers.Register(cd.GroupName, ch, cd) {
			p.lg.Info("consumer group changed", zap.String("group", cd.GroupName), zap.String("client", hb.ClientID))
		}
	}
	for _, pd := range hb.ProducerDataSet {
		p.Producers.Register(pd.GroupName, ch)
	}
	return success(req), nil
}

// unregisterClient removes a client from its groups (UNREGISTER_CLIENT; only ali-ons and Java send it).
func (p *Processor) unregisterClient(_ context.Context, c *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	f := protocol.Fields(req)
	f.String("clientID")
	producerGroup := f.OptString("producerGroup", "")
	consumerGroup := f.OptString("consumerGroup", "")
	if err := f.Err(); err != nil {
		return nil, err
	}
	if producerGroup != "" {
		p.Producers.Unregister(producerGroup, c.ID())
	}
	if consumerGroup != "" {
		p.Consumers.Unregister(consumerGroup, c.ID())
	}
	return success(req), nil
}

// consumerList answers GET_CONSUMER_LIST_BY_GROUP.
func (p *Processor) consumerList(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	f := protocol.Fields(req)
	group := f.String("consumerGroup")
	if err := f.Err(); err != nil {
		return nil, err
	}
	ids := p.Consumers.ClientIDs(group)
	if len(ids) == 0 {
		return nil, fail(protocol.SystemError, "no consumer for this group, %s", group)
	}
	return withJSONBody(req, body.ConsumerIDList{ConsumerIDList: ids})
}

// NotifyConsumerIDsChanged tells a group's remaining members to rebalance
// (NOTIFY_CONSUMER_IDS_CHANGED, oneway), unless the group turned notification off.
func (p *Processor) NotifyConsumerIDsChanged(group string, remaining []client.ClientChannel) {
	if cfg, ok := p.Groups.Get(group); ok && !cfg.NotifyConsumerIdsChangedEnable {
		return
	}
	for _, ch := range remaining {
		req := protocol.NewRequest(protocol.NotifyConsumerIdsChanged, map[string]string{"consumerGroup": group}, nil)
		if err := ch.Channel.InvokeOneway(req); err != nil {
			p.lg.Debug("notify consumer ids changed failed", zap.String("group", group),
				zap.String("client", ch.ClientID), zap.Error(err))
		}
	}
}

// withJSONBody answers SUCCESS with v encoded as the body.
func withJSONBody(req *protocol.Command, v any) (*protocol.Command, error) {
	data, err := body.Marshal(v)
	if err != nil {
		return nil, err
	}
	resp := success(req)
	resp.Body = data
	return resp, nil
}

func itoa64(v int64) string { return strconv.FormatInt(v, 10) }
