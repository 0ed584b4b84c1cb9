package main

import (
	"context"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
	"github.com/rocketgo/rocketgo/pkg/protocol/names"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// stub answers requests without storing anything.
type stub struct {
	host   netip.AddrPort
	queues int32
	phy    atomic.Int64 // the next "CommitLog offset" handed out, advanced by body length
	offset atomic.Int64 // the next "queue offset", one counter for every queue

	// onNewTopic, if set, hears that a topic was added (to register again).
	onNewTopic func()

	mu     sync.Mutex
	topics map[string]body.TopicConfig
	ver    int64
	stamp  int64 // unix ms of the last change
}

func newStub(host netip.AddrPort, queues int32, topics []string) *stub {
	s := &stub{host: host, queues: queues, topics: map[string]body.TopicConfig{}}
	for _, t := range append(topics, systopic.AutoCreate) {
		if t = strings.TrimSpace(t); t != "" {
			s.addTopic(t)
		}
	}
	return s
}

func (s *stub) routes(srv *remoting.Server) {
	for _, code := range []protocol.RequestCode{protocol.SendMessage, protocol.SendMessageV2, protocol.SendBatchMessage} {
		srv.Handle(code, remoting.HandlerFunc(s.send))
	}
	srv.Handle(protocol.UpdateAndCreateTopic, remoting.HandlerFunc(s.createTopic))
	srv.HandleDefault(remoting.HandlerFunc(func(_ context.Context, _ *remoting.Conn, req *protocol.Command) *protocol.Command {
		return protocol.NewResponse(req, protocol.Success, "")
	}))
}

// addTopic registers topic with the stub's queue count; it reports whether the topic is new.
func (s *stub) addTopic(topic string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.topics[topic]; ok {
		return false
	}
	tc := body.NewTopicConfig(topic)
	tc.ReadQueueNums, tc.WriteQueueNums = int(s.queues), int(s.queues)
	s.topics[topic] = tc
	s.ver++
	s.stamp = time.Now().UnixMilli()
	return true
}

// topicTable is the registration's topic table.
func (s *stub) topicTable() body.TopicConfigSerializeWrapper {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := body.TopicConfigSerializeWrapper{TopicConfigTable: make(map[string]body.TopicConfig, len(s.topics))}
	for k, v := range s.topics {
		w.TopicConfigTable[k] = v
	}
	w.DataVersion.Counter, w.DataVersion.Timestamp = s.ver, s.stamp
	return w
}

func (s *stub) learn(topic string) {
	if names.Topic(topic) == nil && s.addTopic(topic) && s.onNewTopic != nil {
		s.onNewTopic()
	}
}

func (s *stub) createTopic(_ context.Context, _ *remoting.Conn, req *protocol.Command) *protocol.Command {
	var h protocol.CreateTopicRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return protocol.NewResponse(req, protocol.SystemError, err.Error())
	}
	s.learn(h.Topic)
	return protocol.NewResponse(req, protocol.Success, "")
}

// send answers a send as stored: a queue offset and one offset message id per message.
func (s *stub) send(_ context.Context, _ *remoting.Conn, req *protocol.Command) *protocol.Command {
	var h protocol.SendMessageRequestHeader
	if err := h.DecodeSend(req.RequestCode(), req.ExtFields); err != nil {
		return protocol.NewResponse(req, protocol.SystemError, err.Error())
	}
	n := 1
	if req.RequestCode() == protocol.SendBatchMessage {
		var err error
		if n, err = message.CountBatch(req.Body); err != nil || n == 0 {
			return protocol.NewResponse(req, protocol.MessageIllegal, "bad batch body")
		}
	}
	s.learn(h.Topic)
	per := int64(len(req.Body) / n)
	phy := s.phy.Add(int64(len(req.Body))) - int64(len(req.Body))
	ids := make([]byte, 0, n*33)
	for i := range n {
		if i > 0 {
			ids = append(ids, ',')
		}
		ids = message.AppendOffsetMsgID(ids, s.host, phy+int64(i)*per)
	}
	resp := protocol.NewResponse(req, protocol.Success, "")
	rh := protocol.SendMessageResponseHeader{MsgID: string(ids), QueueID: max(h.QueueID, 0),
		QueueOffset: s.offset.Add(int64(n)) - int64(n)}
	rh.Encode(&resp.ExtFields)
	return resp
}
