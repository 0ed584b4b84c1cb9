package transaction

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// fakeTimers moves a message with TIMER_DELAY_SEC to topic "TIMER", refuses one with "bad".
type fakeTimers struct{}

var errTimerRefused = errors.New("timer refused")

func (fakeTimers) Divert(m *store.Message) (bool, error) {
	switch v, ok := message.LookupPropertyString(m.Properties, message.PropertyTimerDelaySec); {
	case !ok:
		return false, nil
	case v == "bad":
		return false, errTimerRefused
	}
	m.Topic, m.QueueID = "TIMER", 0
	return true, nil
}

// A committed message that asks for a delivery time becomes a timer message, as in Java; one the
// timer refuses is not committed (the half stays, to be checked back).
func TestEndCommitDivertsTimerMessages(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.Timers = fakeTimers{} })
	half := e.sendHalf(t, "U-TIMER", 0, message.PropertyTimerDelaySec, "5")
	require.NoError(t, e.end(half, StateCommit))
	e.waitQueue(t, "TIMER", 0, 1)
	require.Equal(t, "U-TIMER", e.read(t, "TIMER", 0)[0].UniqKey())
	require.Zero(t, e.st.MaxOffsetInQueue("Orders", 2))

	bad := e.sendHalf(t, "U-BAD", 0, message.PropertyTimerDelaySec, "bad")
	require.ErrorIs(t, e.end(bad, StateCommit), errTimerRefused)
	require.Equal(t, int64(1), e.st.MaxOffsetInQueue("TIMER", 0))
}
