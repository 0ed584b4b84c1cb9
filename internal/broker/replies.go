package broker

import (
	"context"

	"github.com/rocketgo/rocketgo/internal/broker/client"
	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/broker/processor"
	"github.com/rocketgo/rocketgo/internal/broker/send"
)

// requesters delivers consumers' replies to the producers that sent the requests: the requester
// is found by its client id among the producers' connections (its heartbeat names its producer
// group), and the reply goes over the connection that heartbeat came on.
type requesters struct {
	producers *client.ProducerManager
	clients   processor.Clients
}

// PushReply implements send.Requesters.
func (r requesters) PushReply(ctx context.Context, clientID string, rep send.Reply) error {
	ch, ok := producerChannel(r.producers.All(), clientID)
	if !ok {
		return outcome.Errorf(outcome.SystemError, "push reply message fail, channel of <%s> not found.", clientID)
	}
	return r.clients.PushReply(ctx, ch, rep)
}

// producerChannel is the connection of the producer with client id id.
func producerChannel(groups map[string][]client.ClientChannel, id string) (client.Channel, bool) {
	for _, chans := range groups {
		for _, ch := range chans {
			if ch.ClientID == id {
				return ch.Channel, true
			}
		}
	}
	return nil, false
}
