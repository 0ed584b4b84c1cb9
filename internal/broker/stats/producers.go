package stats

import (
	"github.com/rocketgo/rocketgo/internal/broker/client"
	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/names"
)

// Producers holds the producer groups' connections.
type Producers interface {
	Channels(group string) []client.ClientChannel
	All() map[string][]client.ClientChannel
}

// ProducerConnections is who is online in a producer group (GET_PRODUCER_CONNECTION_LIST).
func (s *Service) ProducerConnections(group string) (body.ProducerConnection, error) {
	if err := names.Group(group); err != nil {
		return body.ProducerConnection{}, outcome.Errorf(outcome.SystemError, "%v", err)
	}
	chans := s.Producers.Channels(group)
	if len(chans) == 0 {
		return body.ProducerConnection{}, outcome.Errorf(outcome.SystemError, "the producer group[%s] not exist", group)
	}
	pc := body.ProducerConnection{ConnectionSet: make([]body.Connection, 0, len(chans))}
	for _, ch := range chans {
		pc.ConnectionSet = append(pc.ConnectionSet, body.Connection{ClientID: ch.ClientID,
			ClientAddr: ch.Channel.RemoteAddr(), Language: ch.Language, Version: int(ch.Version)})
	}
	return pc, nil
}

// AllProducers is every producer group's connections (GET_ALL_PRODUCER_INFO).
func (s *Service) AllProducers() body.ProducerTableInfo {
	all := s.Producers.All()
	t := body.ProducerTableInfo{Data: make(map[string][]body.ProducerInfo, len(all))}
	for group, chans := range all {
		infos := make([]body.ProducerInfo, 0, len(chans))
		for _, ch := range chans {
			infos = append(infos, body.ProducerInfo{ClientID: ch.ClientID, RemoteIP: "/" + ch.Channel.RemoteAddr(),
				Language: ch.Language, Version: int(ch.Version), LastUpdateTimestamp: ch.LastUpdate.UnixMilli()})
		}
		t.Data[group] = infos
	}
	return t
}
