package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func timerCases() map[string]brokerCase {
	return map[string]brokerCase{
		"timerWheelEnable": {line: "timerWheelEnable=false", want: func(t *testing.T, o BrokerOptions) {
			require.True(t, o.Broker.Timer.Disable)
		}},
		"timerPrecisionMs": {line: "timerPrecisionMs=1000", want: func(t *testing.T, o BrokerOptions) {
			require.EqualValues(t, 1000, o.Broker.Timer.PrecisionMs)
		}},
		"timerMaxDelaySec": {line: "timerMaxDelaySec=86400", want: func(t *testing.T, o BrokerOptions) {
			require.EqualValues(t, 86400, o.Broker.Timer.MaxDelaySec)
		}},
		"timerRollWindowSlot": {line: "timerRollWindowSlot=3600", want: func(t *testing.T, o BrokerOptions) {
			require.EqualValues(t, 3600, o.Broker.Timer.RollWindowSlots)
		}},
		"timerFlushIntervalMs": {line: "timerFlushIntervalMs=500", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, 500*time.Millisecond, o.Broker.Timer.FlushInterval)
		}},
		"mappedFileSizeTimerLog": {line: "mappedFileSizeTimerLog=1048576", want: func(t *testing.T, o BrokerOptions) {
			require.EqualValues(t, 1<<20, o.Broker.Timer.LogSegmentSize)
		}},
		"timerCongestNumEachSlot": {line: "timerCongestNumEachSlot=1000", want: func(t *testing.T, o BrokerOptions) {
			require.EqualValues(t, 1000, o.Broker.Timer.CongestNumEachSlot)
		}},
		"recallMessageEnable": {line: "recallMessageEnable=true", want: func(t *testing.T, o BrokerOptions) {
			require.True(t, o.Broker.Timer.RecallEnable)
		}},
		"allowRecallWhenBrokerNotWriteable": {line: "allowRecallWhenBrokerNotWriteable=false", want: func(t *testing.T, o BrokerOptions) {
			require.True(t, o.Broker.Timer.DenyRecallWhenNotWriteable)
		}},
	}
}
