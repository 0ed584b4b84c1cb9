package broker_test

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker"
	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// TestBadInput sends every kind of bad request to a broker that already holds messages. Each gets
// RocketMQ's code with a remark naming the problem, a broken frame closes only its own connection,
// nothing bad is stored, and afterwards the old messages are intact and new ones are accepted.
func TestBadInput(t *testing.T) {
	b := brokertest.Start(t, func(o *broker.Options) { o.AutoCreateTopicEnable = false })
	c := b.Dial(t)
	const topic = "BadInputTopic"
	createTopic(t, c, topic, 4)
	var stored []string
	for i := range 3 {
		body := fmt.Sprintf("kept-%d", i)
		mustSend(t, c, brokertest.SendRequest(brokertest.Msg{Topic: topic, QueueID: 1, Body: []byte(body), Tags: "T"}))
		stored = append(stored, body)
	}
	logEnd := b.Store().CommitLogMaxOffset()
	good := brokertest.Msg{Topic: topic, QueueID: 0, Body: []byte("x")}
	goodPull := brokertest.Pull{Group: "G_BAD", Topic: topic, QueueID: 1, SysFlag: brokertest.PullSubscription, Sub: "*"}

	t.Run("unknown request code", func(t *testing.T) {
		resp := c.Call(protocol.NewRequest(9999, nil, nil))
		requireCode(t, resp, protocol.RequestCodeNotSupported, "9999", "not supported")
	})

	t.Run("missing SEND_MESSAGE fields", func(t *testing.T) {
		for _, field := range brokertest.RequiredSendFields {
			req := brokertest.SendRequest(good)
			req.ExtFields.Delete(field)
			requireCode(t, c.Call(req), protocol.SystemError, "<"+field+">")
		}
	})
	t.Run("missing SEND_MESSAGE_V2 fields", func(t *testing.T) {
		for _, field := range brokertest.RequiredSendFieldsV2 {
			req := brokertest.SendV2Request(good)
			req.ExtFields.Delete(field)
			requireCode(t, c.Call(req), protocol.SystemError, "<"+field+">")
		}
	})
	t.Run("missing SEND_BATCH_MESSAGE fields", func(t *testing.T) {
		for _, field := range brokertest.RequiredSendFieldsV2 {
			req := brokertest.BatchRequest(good, good)
			req.ExtFields.Delete(field)
			requireCode(t, c.Call(req), protocol.SystemError, "<"+field+">")
		}
	})
	t.Run("missing PULL_MESSAGE fields", func(t *testing.T) {
		for _, field := range brokertest.RequiredPullFields {
			req := brokertest.PullRequest(goodPull)
			req.ExtFields.Delete(field)
			requireCode(t, c.Call(req), protocol.SystemError, "<"+field+">")
		}
	})

	t.Run("non-numeric number fields", func(t *testing.T) {
		req := brokertest.SendRequest(good)
		req.ExtFields.Set("queueId", "one")
		requireCode(t, c.Call(req), protocol.SystemError, "<queueId>", `"one"`)
		req = brokertest.SendV2Request(good)
		req.ExtFields.Set("g", "yesterday")
		requireCode(t, c.Call(req), protocol.SystemError, "<g>", `"yesterday"`)
		req = brokertest.SendRequest(good)
		req.ExtFields.Set("reconsumeTimes", "many") // optional, but present and malformed
		requireCode(t, c.Call(req), protocol.SystemError, "<reconsumeTimes>")
		req = brokertest.PullRequest(goodPull)
		req.ExtFields.Set("queueOffset", "1.5")
		requireCode(t, c.Call(req), protocol.SystemError, "<queueOffset>", `"1.5"`)
		req = brokertest.PullRequest(goodPull)
		req.ExtFields.Set("maxMsgNums", "99999999999") // beyond int32
		requireCode(t, c.Call(req), protocol.SystemError, "<maxMsgNums>")
	})

	t.Run("body over maxMessageSize", func(t *testing.T) {
		big := good
		big.Body = make([]byte, 4<<20+1)
		requireCode(t, c.Call(brokertest.SendRequest(big)), protocol.MessageIllegal, "4194304")
		requireCode(t, c.Call(brokertest.SendV2Request(big)), protocol.MessageIllegal)
		requireCode(t, c.Call(brokertest.BatchRequest(big)), protocol.MessageIllegal)
		big.Body = big.Body[:4<<20] // the body fits, the record does not (Java checks the record)
		requireCode(t, c.Call(brokertest.SendRequest(big)), protocol.MessageIllegal)
	})

	t.Run("properties over 32767 bytes", func(t *testing.T) {
		req := brokertest.SendRequest(good)
		req.ExtFields.Set("properties", string(message.AppendProperty(nil, "p", strings.Repeat("v", 32766))))
		requireCode(t, c.Call(req), protocol.MessageIllegal, "32767")
		batch := good
		batch.Props = map[string]string{"p": strings.Repeat("v", 32766)}
		requireCode(t, c.Call(brokertest.BatchRequest(good, batch)), protocol.MessageIllegal)
	})

	t.Run("illegal topic names", func(t *testing.T) {
		for _, name := range []string{"bad topic", "bad/topic", "topic!", "主题", strings.Repeat("a", 128)} {
			m := good
			m.Topic = name
			requireCode(t, c.Call(brokertest.SendRequest(m)), protocol.MessageIllegal, "topic")
			requireCode(t, c.Call(brokertest.SendV2Request(m)), protocol.MessageIllegal, "topic")
			requireCode(t, c.Call(brokertest.BatchRequest(m)), protocol.MessageIllegal, "topic")
		}
	})

	t.Run("unknown topic without auto-creation", func(t *testing.T) {
		m := good
		m.Topic = "NeverCreated"
		requireCode(t, c.Call(brokertest.SendRequest(m)), protocol.TopicNotExist, "NeverCreated")
		requireCode(t, c.Call(brokertest.SendV2Request(m)), protocol.TopicNotExist, "NeverCreated")
		requireCode(t, c.Call(brokertest.BatchRequest(m)), protocol.TopicNotExist, "NeverCreated")
		p := goodPull
		p.Topic = "NeverCreated"
		requireCode(t, c.Call(brokertest.PullRequest(p)), protocol.TopicNotExist, "NeverCreated")
	})

	t.Run("queueId out of range", func(t *testing.T) {
		m := good
		m.QueueID = 4
		requireCode(t, c.Call(brokertest.SendRequest(m)), protocol.SystemError, "queueId")
		requireCode(t, c.Call(brokertest.BatchRequest(m)), protocol.SystemError, "queueId")
		for _, q := range []int32{4, 1000, -1} {
			p := goodPull
			p.QueueID = q
			requireCode(t, c.Call(brokertest.PullRequest(p)), protocol.SystemError, "queueId")
		}
	})

	t.Run("bad batch body", func(t *testing.T) {
		req := brokertest.BatchRequest(good)
		req.Body = req.Body[:len(req.Body)-1]
		requireCode(t, c.Call(req), protocol.MessageIllegal)
		req.Body = nil
		requireCode(t, c.Call(req), protocol.MessageIllegal)
	})

	t.Run("bad heartbeat body", func(t *testing.T) {
		resp := c.Call(protocol.NewRequest(protocol.HeartBeat, nil, []byte(`{"clientID":`)))
		requireCode(t, resp, protocol.SystemError, "heartbeat")
	})

	t.Run("broken frames close only their connection", func(t *testing.T) {
		be := binary.BigEndian
		frame := func(words ...uint32) []byte {
			var b []byte
			for _, w := range words {
				b = be.AppendUint32(b, w)
			}
			return b
		}
		jsonFrame := func(typ byte, header string) []byte {
			b := be.AppendUint32(nil, uint32(4+len(header)))
			b = be.AppendUint32(b, uint32(typ)<<24|uint32(len(header)))
			return append(b, header...)
		}
		cases := map[string][]byte{
			"length below 4":          frame(2, 0),
			"negative length":         frame(0xFFFFFFFF, 0),
			"header longer than rest": frame(8, 100, 0),
			"frame over 16 MiB":       frame(16<<20+1, 10),
			"garbage length":          []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"),
			"unknown serialize type":  jsonFrame(7, `{"code":30}`),
			"header not JSON":         jsonFrame(0, `{"code":30,`),
			"binary header too short": jsonFrame(1, "\x00\x1e"),
		}
		for name, raw := range cases {
			t.Run(name, func(t *testing.T) {
				bad := b.Dial(t)
				bad.WriteRaw(raw)
				bad.ExpectClosed()
				require.Equal(t, int64(3), maxOffset(t, c, topic, 1), "the healthy connection keeps working")
			})
		}
	})

	t.Run("the store is unharmed", func(t *testing.T) {
		require.Equal(t, logEnd, b.Store().CommitLogMaxOffset(), "no rejected request wrote to the CommitLog")
		for q := int32(0); q < 4; q++ {
			want := int64(0)
			if q == 1 {
				want = 3
			}
			require.Equal(t, want, maxOffset(t, c, topic, q), "queue %d", q)
		}
		require.Equal(t, stored, bodies(pullAll(t, c, "G_AFTER", topic, 1, 0)))
		s := mustSend(t, c, brokertest.SendRequest(brokertest.Msg{Topic: topic, QueueID: 1, Body: []byte("new")}))
		require.Equal(t, int64(3), s.queueOffset)
		require.Equal(t, append(stored, "new"), bodies(pullAll(t, c, "G_AFTER", topic, 1, 0)))
	})
}
