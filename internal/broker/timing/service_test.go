package timing

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/timer"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// A timer message waits in rmq_sys_wheel_timer and reaches its topic once its slot has ended,
// never before its time, with Java's properties.
func TestTimerMessageIsDeliveredAtItsTime(t *testing.T) {
	r := newRig(t)
	// Times far enough ahead that a stalled machine (the test clock follows the real one when it
	// is ahead) does not make them due before the test moves the clock.
	due := r.clk.millis() + 31_234
	r.sendAt("a", due)
	r.send("b", map[string]string{message.PropertyTimerDelaySec: "45"})
	r.step()
	assert.Empty(t, r.delivered(), "nothing is due")
	assert.Equal(t, map[string]int64{"T": 2}, r.svc.Pending())

	r.clk.at(due - 1)
	r.step()
	assert.Empty(t, r.delivered(), "a millisecond early")
	slotEnd := due/100*100 + 100 // the slot of due ends at the next multiple of the precision
	r.clk.at(slotEnd + frontierMargin - 1)
	r.step()
	assert.Empty(t, r.delivered(), "its slot has not ended")
	r.clk.at(slotEnd + frontierMargin)
	r.step()
	got := r.delivered()
	require.Len(t, got, 1)
	m := got[0]
	assert.Equal(t, "body-a", string(m.Body))
	assert.Equal(t, "ID-a", m.UniqKey())
	assert.Equal(t, strconv.FormatInt(due, 10), m.Props[message.PropertyTimerDeliverMS])
	assert.Equal(t, strconv.FormatInt(due/100*100, 10), m.Props[message.PropertyTimerOutMS])
	assert.Contains(t, m.Props, message.PropertyTimerEnqueueMS)
	dequeued, _ := strconv.ParseInt(m.Props[message.PropertyTimerDequeueMS], 10, 64)
	assert.GreaterOrEqual(t, dequeued, due, "delivered no earlier than asked (on the service's clock)")
	assert.NotContains(t, m.Props, message.PropertyRealTopic)
	assert.NotContains(t, m.Props, message.PropertyRealQueueID)
	assert.Equal(t, map[string]int64{"T": 1}, r.svc.Pending())

	r.clk.at(r.clk.millis() + 20_000)
	r.step()
	assert.Equal(t, map[string]int{"a": 1, "b": 1}, keys(r.delivered()))
	assert.Empty(t, r.svc.Pending())
}

// Messages due in the same slot, or already due when taken in, are all delivered, once.
func TestManyMessagesOneSlotAndLateOnes(t *testing.T) {
	r := newRig(t)
	due := r.clk.millis() + 500
	for i := range 300 {
		r.sendAt("k"+strconv.Itoa(i), due+int64(i%50))
	}
	r.clk.at(due + 200)
	r.step()
	got := keys(r.delivered())
	assert.Len(t, got, 300)
	for k, n := range got {
		assert.Equal(t, 1, n, k)
	}
}

// A message due beyond the roll window waits in the window's last slot and is written again to
// rmq_sys_wheel_timer from there, as many times as needed, and delivered once at its time.
func TestRollBeyondTheWindow(t *testing.T) {
	r := newRig(t)
	r.svc.Close()
	r.opts.RollWindowSlots = 5 // 500 ms
	r.dir = t.TempDir()
	r.so.RootDir, r.opts.RootDir = r.dir, r.dir
	r.open()
	// Rolled copies get the store's (real) time: this test runs on the real clock.
	due := time.Now().UnixMilli() + 1700
	r.sendAt("far", due)
	require.Eventually(t, func() bool {
		r.step()
		if time.Now().UnixMilli() < due {
			require.Empty(t, r.delivered())
		}
		return len(r.delivered()) > 0
	}, 10*time.Second, 20*time.Millisecond)
	got := r.delivered()
	require.Len(t, got, 1)
	rolls, _ := strconv.Atoi(got[0].Props[message.PropertyTimerRollTimes])
	assert.GreaterOrEqual(t, rolls, 2)
	assert.GreaterOrEqual(t, got[0].StoreTimestamp, due)
	assert.Greater(t, r.st.MaxOffsetInQueue(systopic.Timer, 0), int64(2), "rolled copies went to the timer topic")
}

// A recall withdraws a pending message: the slot leaves it out; the answer is its id.
func TestRecallWithdrawsAPendingMessage(t *testing.T) {
	r := newRig(t)
	due := r.clk.millis() + 800
	m := storeMsg(r, "gone", due)
	handle := r.svc.RecallHandle(m)
	require.NotEmpty(t, handle)
	h, err := DecodeHandle(handle)
	require.NoError(t, err)
	assert.Equal(t, Handle{Topic: "T", BrokerName: "broker-a", Timestamp: strconv.FormatInt(due/100*100+1, 10),
		MessageID: "ID-gone"}, h)
	r.sendAt("kept", due)
	r.step()

	id, err := r.svc.Recall(RecallRequest{ProducerGroup: "PG", Topic: "T", Handle: handle})
	require.NoError(t, err)
	assert.Equal(t, "ID-gone", id)
	r.clk.at(due + 200)
	r.step()
	assert.Equal(t, map[string]int{"kept": 1}, keys(r.delivered()))
	assert.Empty(t, r.svc.Pending())
}

// storeMsg sends a timer message and returns it as stored (for its recall handle).
func storeMsg(r *rig, key string, due int64) *message.Message {
	m := &message.Message{Topic: "T", Body: []byte("body-" + key), Properties: message.EncodeProperties(map[string]string{
		message.PropertyKeys: key, message.PropertyUniqClientMessageID: "ID-" + key,
		message.PropertyTimerDeliverMS: strconv.FormatInt(due, 10)})}
	ok, err := r.svc.Divert(m)
	require.NoError(r.t, err)
	require.True(r.t, ok)
	require.True(r.t, r.st.PutMessage(m).Status.Stored())
	return m
}

func TestRecallRefusals(t *testing.T) {
	r := newRig(t)
	good := EncodeHandle(Handle{Topic: "T", BrokerName: "broker-a", Timestamp: strconv.FormatInt(r.clk.millis()+5000, 10), MessageID: "X"})
	for _, c := range []struct {
		name   string
		edit   func(o *Options)
		req    RecallRequest
		kind   string
		remark string
	}{
		{"disabled", func(o *Options) { o.RecallEnable = false }, RecallRequest{Topic: "T", Handle: good}, "NoPermission", "recall failed, operation is forbidden"},
		{"slave", func(o *Options) { o.Slave = true }, RecallRequest{Topic: "T", Handle: good}, "SlaveNotAvailable", "recall failed, broker service not available"},
		{"not writable", func(o *Options) { o.BrokerPermission = body.PermRead }, RecallRequest{Topic: "T", Handle: good}, "ServiceNotAvailable", "recall failed, broker service not available"},
		{"no topic", nil, RecallRequest{Topic: "U", Handle: good}, "TopicNotExist", "recall failed, the topic[U] not exist"},
		{"bad handle", nil, RecallRequest{Topic: "T", Handle: "!!"}, "IllegalOperation", "recall handle is invalid"},
		{"other topic", nil, RecallRequest{Topic: "T", Handle: EncodeHandle(Handle{Topic: "U", BrokerName: "broker-a", Timestamp: "1", MessageID: "X"})}, "IllegalOperation", "recall failed, topic not match"},
		{"other broker", nil, RecallRequest{Topic: "T", Handle: EncodeHandle(Handle{Topic: "T", BrokerName: "b", Timestamp: "1", MessageID: "X"})}, "IllegalOperation", "recall failed, broker service not available"},
		{"past", nil, RecallRequest{Topic: "T", Handle: EncodeHandle(Handle{Topic: "T", BrokerName: "broker-a", Timestamp: "1", MessageID: "X"})}, "IllegalOperation", "recall failed, timestamp invalid"},
		{"not a topic name", nil, RecallRequest{Topic: "../T", Handle: good}, "TopicNotExist",
			`recall failed, the topic"../T" not exist: The specified topic contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$`},
		{"not a group name", nil, RecallRequest{ProducerGroup: "PG\x01x", Topic: "T", Handle: good}, "IllegalOperation",
			`recall failed, bad producer group: The specified group "PG\x01x" contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$`},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := &Service{opts: r.opts, topics: topicsStub{"T": true}, st: r.put}
			if c.edit != nil {
				c.edit(&s.opts)
			}
			_, err := s.Recall(c.req)
			assertOutcome(t, err, c.kind, c.remark)
		})
	}
}

// The checkpoint answers GET_TIMER_CHECK_POINT in Java's layout; the metrics GET_TIMER_METRICS.
func TestCheckpointAndMetricsBodies(t *testing.T) {
	r := newRig(t)
	r.sendAt("a", r.clk.millis()+60_000)
	r.settle()
	c, err := body.DecodeTimerCheckpoint(r.svc.CheckpointBody())
	require.NoError(t, err)
	saved := r.svc.Checkpoint()
	assert.Equal(t, saved.ReadMs, c.LastReadTimeMs)
	assert.Equal(t, int64(timer.RecordSize), c.LastTimerLogFlushPos)
	assert.Equal(t, int64(1), c.LastTimerQueueOffset)
	assert.Equal(t, int64(1), c.MasterTimerQueueOffset)
	assert.True(t, c.Ext)
	assert.Equal(t, int64(100), c.PrecisionMs)
	m := r.svc.Metrics()
	assert.Equal(t, int64(1), m.TimingCount["T"].Count)
}
