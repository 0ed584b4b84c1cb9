package policy

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRetryOrDLQ(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   Failure
		want Redelivery
	}{
		{"send-back, first failure, broker's delay",
			Failure{ReconsumeTimes: 0, RequestMax: -1, GroupMax: 16, BrokerDelay: true},
			Redelivery{DelayLevel: 3, MaxTimes: 16}},
		{"send-back, the delay grows with each attempt",
			Failure{ReconsumeTimes: 5, RequestMax: -1, GroupMax: 16, BrokerDelay: true},
			Redelivery{DelayLevel: 8, MaxTimes: 16}},
		{"send-back, the consumer's own delay level",
			Failure{ReconsumeTimes: 5, RequestMax: -1, GroupMax: 16, DelayLevel: 2, BrokerDelay: true},
			Redelivery{DelayLevel: 2, MaxTimes: 16}},
		{"send-back, a negative delay level asks for the DLQ",
			Failure{ReconsumeTimes: 0, RequestMax: -1, GroupMax: 16, DelayLevel: -1, BrokerDelay: true},
			Redelivery{DLQ: true, MaxTimes: 16}},
		{"send-back, the group's maximum reached",
			Failure{ReconsumeTimes: 16, RequestMax: -1, GroupMax: 16, BrokerDelay: true},
			Redelivery{DLQ: true, MaxTimes: 16}},
		{"send-back, one below the group's maximum",
			Failure{ReconsumeTimes: 15, RequestMax: -1, GroupMax: 16, BrokerDelay: true},
			Redelivery{DelayLevel: 18, MaxTimes: 16}},
		{"the client's maximum wins over the group's",
			Failure{ReconsumeTimes: 2, RequestMax: 2, GroupMax: 16, BrokerDelay: true},
			Redelivery{DLQ: true, MaxTimes: 2}},
		{"the client's maximum may be larger than the group's",
			Failure{ReconsumeTimes: 20, RequestMax: 30, GroupMax: 16, BrokerDelay: true},
			Redelivery{DelayLevel: 23, MaxTimes: 30}},
		{"a client maximum of 0 sends the first failure to the DLQ",
			Failure{ReconsumeTimes: 0, RequestMax: 0, GroupMax: 16, BrokerDelay: true},
			Redelivery{DLQ: true, MaxTimes: 0}},
		{"send to a retry topic keeps no delay",
			Failure{ReconsumeTimes: 3, RequestMax: -1, GroupMax: 16},
			Redelivery{MaxTimes: 16}},
		{"send to a retry topic keeps the delay it carries",
			Failure{ReconsumeTimes: 3, RequestMax: -1, GroupMax: 16, DelayLevel: 6},
			Redelivery{DelayLevel: 6, MaxTimes: 16}},
		{"send to a retry topic past the maximum",
			Failure{ReconsumeTimes: 17, RequestMax: -1, GroupMax: 16, DelayLevel: 6},
			Redelivery{DLQ: true, MaxTimes: 16}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, RetryOrDLQ(tc.in))
		})
	}
}

func TestDelayLevel(t *testing.T) {
	for _, tc := range []struct{ level, maxLevel, want int }{
		{0, 18, 0}, {-3, 18, 0}, {1, 18, 1}, {18, 18, 18}, {19, 18, 18}, {99, 2, 2}, {5, 0, 0},
	} {
		require.Equal(t, tc.want, DelayLevel(tc.level, tc.maxLevel), "level %d of %d", tc.level, tc.maxLevel)
	}
}
