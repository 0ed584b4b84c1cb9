package send

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// fakeTimers diverts a message with TIMER_DELAY_SEC and refuses one with TIMER_DELAY_SEC=bad.
type fakeTimers struct{ seen int }

func (f *fakeTimers) Divert(m *store.Message) (bool, error) {
	f.seen++
	v, ok := message.LookupPropertyString(m.Properties, message.PropertyTimerDelaySec)
	switch {
	case !ok:
		return false, nil
	case v == "bad":
		return false, outcome.Errorf(outcome.MessageIllegal, "timer refused")
	}
	m.Topic, m.QueueID = systopic.Timer, 0
	return true, nil
}

func (f *fakeTimers) RecallHandle(m *store.Message) string { return "handle-of-" + m.Topic }

func withTimers(e *env) *fakeTimers {
	ft := &fakeTimers{}
	e.svc.Timers = ft
	return ft
}

// A send asking for a delivery time is stored as the timer service rewrote it and answered with
// its recall handle; one it refuses is not stored.
func TestSendDivertsTimerMessages(t *testing.T) {
	e := newEnv()
	withTimers(e)
	res, err := e.svc.Send(*request("T", message.PropertyTimerDelaySec, "5"))
	require.NoError(t, err)
	require.Equal(t, "handle-of-"+systopic.Timer, res.RecallHandle)
	require.Equal(t, systopic.Timer, e.store.puts[0].Topic)

	_, err = e.svc.Send(*request("T", message.PropertyTimerDelaySec, "bad"))
	requireKind(t, err, outcome.MessageIllegal, "timer refused")
	require.Len(t, e.store.puts, 1)

	res, err = e.svc.Send(*request("T"))
	require.NoError(t, err)
	require.Empty(t, res.RecallHandle, "not a timer message")
	require.Equal(t, "T", e.store.puts[1].Topic)
}

// Transaction halves, messages going to a DLQ and batches are not offered to the timer service;
// a message it leaves alone still gets its delay level.
func TestSendTimerHookScope(t *testing.T) {
	e := newEnv()
	ft := withTimers(e)
	_, err := e.svc.Send(*request("T", message.PropertyTransactionPrepared, "true", message.PropertyTimerDelaySec, "5"))
	require.NoError(t, err)
	require.Equal(t, 0, ft.seen)

	r := request("%RETRY%G", message.PropertyTimerDelaySec, "5")
	r.ReconsumeTimes = 17
	_, err = e.svc.Send(*r)
	require.NoError(t, err)
	require.Equal(t, 0, ft.seen, "a DLQ message")

	b := request("T")
	b.Body = batchBody(string(message.AppendProperty(nil, message.PropertyTimerDelaySec, "5")))
	_, err = e.svc.SendBatch(*b)
	require.NoError(t, err)
	require.Equal(t, 0, ft.seen, "a batch")

	_, err = e.svc.Send(*request("T", message.PropertyDelayTimeLevel, "3"))
	require.NoError(t, err)
	require.Equal(t, 1, ft.seen)
	require.Equal(t, systopic.Schedule, e.store.puts[len(e.store.puts)-1].Topic)
}
