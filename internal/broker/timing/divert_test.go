package timing

import (
	"encoding/base64"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

func assertOutcome(t *testing.T, err error, kind, remark string) {
	t.Helper()
	require.Error(t, err)
	k, r := outcome.Of(err)
	assert.Equal(t, kind, k.String())
	assert.Equal(t, remark, r)
}

const illegalRemark = "timer message illegal, the delay time should not be bigger than the max delay 3600000ms; " +
	"or if set del msg, the delay time should be bigger than the current time"

func TestDivert(t *testing.T) {
	const now = 1_700_000_000_000
	s := &Service{opts: Options{Enable: true, PrecisionMs: 1000, MaxDelaySec: 3600, Now: func() time.Time { return time.UnixMilli(now) }}}
	ms := func(v int64) string { return strconv.FormatInt(v, 10) }
	for _, c := range []struct {
		name    string
		props   map[string]string
		sysFlag int32
		topic   string
		timer   bool
		outMs   int64
		err     string // outcome kind
		remark  string
		left    map[string]string // properties a message left alone must have
	}{
		{name: "no timer property", props: map[string]string{"K": "v"}},
		{name: "deliver ms", props: map[string]string{message.PropertyTimerDeliverMS: ms(now + 5500)}, timer: true, outMs: now + 5000},
		{name: "deliver ms on a second: one precision less", props: map[string]string{message.PropertyTimerDeliverMS: ms(now + 5000)}, timer: true, outMs: now + 4000},
		{name: "delay sec", props: map[string]string{message.PropertyTimerDelaySec: "10"}, timer: true, outMs: now + 9000},
		{name: "delay ms wins over deliver ms", props: map[string]string{message.PropertyTimerDelayMS: "2500", message.PropertyTimerDeliverMS: ms(now + 99_000)}, timer: true, outMs: now + 2000},
		{name: "delay sec wins over delay ms", props: map[string]string{message.PropertyTimerDelaySec: "3", message.PropertyTimerDelayMS: "99000"}, timer: true, outMs: now + 2000},
		{name: "max delay exactly", props: map[string]string{message.PropertyTimerDelaySec: "3600"}, timer: true, outMs: now + 3599_000},
		{name: "beyond max delay", props: map[string]string{message.PropertyTimerDelaySec: "3601"}, err: "MessageIllegal", remark: illegalRemark},
		{name: "not a number", props: map[string]string{message.PropertyTimerDeliverMS: "soon"}, err: "MessageIllegal", remark: illegalRemark},
		{name: "time passed: stored as it is", props: map[string]string{message.PropertyTimerDeliverMS: ms(now - 1)},
			left: map[string]string{message.PropertyTimerDeliverMS: ms(now - 1)}},
		{name: "recall whose time passed", props: map[string]string{message.PropertyTimerDeliverMS: ms(now), message.PropertyTimerDelUniqKey: "T+X"}, err: "MessageIllegal", remark: illegalRemark},
		{name: "delay level wins; timer properties removed", props: map[string]string{message.PropertyDelayTimeLevel: "3", message.PropertyTimerDelaySec: "5"},
			left: map[string]string{message.PropertyDelayTimeLevel: "3"}},
		{name: "already delivered once", props: map[string]string{message.PropertyTimerOutMS: "1", message.PropertyTimerDelaySec: "5"},
			left: map[string]string{message.PropertyTimerOutMS: "1", message.PropertyTimerDelaySec: "5"}},
		{name: "transaction half left alone", sysFlag: message.SysFlagTransactionPrep, props: map[string]string{message.PropertyTimerDelaySec: "5"},
			left: map[string]string{message.PropertyTimerDelaySec: "5"}},
		{name: "a commit is diverted", sysFlag: message.SysFlagTransactionCommit, props: map[string]string{message.PropertyTimerDelaySec: "5"}, timer: true, outMs: now + 4000},
		{name: "a roll copy is left alone", topic: systopic.Timer, props: map[string]string{message.PropertyTimerDelaySec: "5"},
			left: map[string]string{message.PropertyTimerDelaySec: "5"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			topic := c.topic
			if topic == "" {
				topic = "T"
			}
			m := &store.Message{Topic: topic, QueueID: 3, SysFlag: c.sysFlag, Properties: message.EncodeProperties(c.props)}
			ok, err := s.Divert(m)
			if c.err != "" {
				assertOutcome(t, err, c.err, c.remark)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.timer, ok)
			props := message.ParseProperties(m.Properties)
			if !c.timer {
				assert.Equal(t, topic, m.Topic)
				assert.Equal(t, len(c.left) == 0 && len(c.props) == 1 && c.props["K"] == "v", props["K"] == "v")
				for k, v := range c.left {
					assert.Equal(t, v, props[k], k)
				}
				if c.left != nil {
					assert.Len(t, props, len(c.left))
				}
				return
			}
			assert.Equal(t, systopic.Timer, m.Topic)
			assert.Equal(t, int32(0), m.QueueID)
			assert.Equal(t, "T", props[message.PropertyRealTopic])
			assert.Equal(t, "3", props[message.PropertyRealQueueID])
			assert.Equal(t, strconv.FormatInt(c.outMs, 10), props[message.PropertyTimerOutMS])
		})
	}
}

func TestDivertRefusesWhenTheWheelIsOff(t *testing.T) {
	s := &Service{opts: Options{PrecisionMs: 1000, MaxDelaySec: 3600, Now: time.Now}}
	m := &store.Message{Topic: "T", Properties: message.EncodeProperties(map[string]string{message.PropertyTimerDelaySec: "5"})}
	_, err := s.Divert(m)
	assertOutcome(t, err, "SystemError", "accurate timer message is not enabled, timerWheelEnable is false")
}

// A recall handle is Java's: "v1 topic broker timestamp id" in URL-safe base64 with padding.
func TestRecallHandleFormat(t *testing.T) {
	h := Handle{Topic: "TopicA", BrokerName: "broker-a", Timestamp: "1700000000001", MessageID: "7F00000100002A9F0000000000000001"}
	// printf 'v1 TopicA broker-a 1700000000001 7F00000100002A9F0000000000000001' | base64 -w0 | tr '+/' '-_'
	const java = "djEgVG9waWNBIGJyb2tlci1hIDE3MDAwMDAwMDAwMDEgN0YwMDAwMDEwMDAwMkE5RjAwMDAwMDAwMDAwMDAwMDE="
	assert.Equal(t, java, EncodeHandle(h))
	for _, s := range []string{java, java[:len(java)-1]} {
		got, err := DecodeHandle(s)
		require.NoError(t, err)
		assert.Equal(t, h, got)
	}
	for _, bad := range []string{"", "@@@", EncodeHandleRaw("v2 a b c d"), EncodeHandleRaw("v1 a b c"),
		EncodeHandleRaw("v1 a b 5 id\x01\x02"), EncodeHandleRaw("v1 a b 5 " + strings.Repeat("F", 129))} {
		_, err := DecodeHandle(bad)
		assert.ErrorIs(t, err, errBadHandle, bad)
	}
	got, err := DecodeHandle(EncodeHandleRaw("v1 a b 5 id extra"))
	require.NoError(t, err)
	assert.Equal(t, "id", got.MessageID)
}

// EncodeHandleRaw encodes any text as a handle would be.
func EncodeHandleRaw(raw string) string { return base64.URLEncoding.EncodeToString([]byte(raw)) }
