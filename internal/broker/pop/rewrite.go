package pop

import (
	"strconv"

	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// rewriteRetry re-encodes a record popped from a retry topic as Java 5.3 answers it by default
// (popResponseReturnActualRetryTopic=false): under the original topic, with the POP_CK property
// added so that the client acks it in the retry topic.
func rewriteRetry(rec []byte, topic string, e *protocol.ExtraInfo) ([]byte, error) {
	v, err := message.Parse(rec)
	if err != nil {
		return nil, err
	}
	m := v.Decode().Message
	m.Topic = topic
	if _, ok := v.Property(message.PropertyPopCK); !ok {
		props := []byte(m.Properties)
		if n := len(props); n > 0 && props[n-1] != message.PropertySeparator {
			props = append(props, message.PropertySeparator)
		}
		m.Properties = string(message.AppendProperty(props, message.PropertyPopCK, e.String()))
	}
	if err := m.Check(); err != nil {
		return nil, err
	}
	out := make([]byte, m.EncodedSize())
	if _, err := message.Encode(out, &m); err != nil {
		return nil, err
	}
	return out, nil
}

// nextAttempt is the message a revive stores for a message not acknowledged in time (Java
// reviveRetry): a copy in the group's POP retry topic with one more reconsume and the time it
// was first popped, or in the group's DLQ once reconsumed as often as the group allows.
func (s *Service) nextAttempt(c *checkpoint, v message.View, dlq bool) message.Message {
	props := message.ParseProperties(v.Properties())
	if v.ReconsumeTimes() == 0 || props[message.PropertyFirstPopTime] == "" {
		props[message.PropertyFirstPopTime] = strconv.FormatInt(c.popTime, 10)
	}
	delete(props, message.PropertyPopCK)
	topic := c.topic
	if dlq {
		if _, ok := props[message.PropertyRetryTopic]; !ok {
			props[message.PropertyRetryTopic] = s.originTopic(c)
		}
		topic = systopic.DLQ(c.group)
	} else if !systopic.IsRetry(topic) {
		topic = RetryTopic(c.group, topic)
	}
	return message.Message{
		Topic:          topic,
		Flag:           v.Flag(),
		SysFlag:        v.SysFlag(),
		BornTimestamp:  v.BornTimestamp(),
		BornHost:       s.opts.StoreHost,
		ReconsumeTimes: v.ReconsumeTimes() + 1,
		Body:           v.Body(),
		Properties:     message.EncodeProperties(props),
	}
}

// originTopic is the topic a checkpoint's messages were first sent to.
func (s *Service) originTopic(c *checkpoint) string {
	if t, ok := systopic.PopRetryOrigin(c.topic, c.group); ok {
		return t
	}
	return c.topic
}
