package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func requestLimitCases() map[string]brokerCase {
	return map[string]brokerCase{
		"longPollingMaxSuspendMillis": {line: "longPollingMaxSuspendMillis=5000", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, 5*time.Second, o.Broker.Limits.MaxSuspendTimeout)
		}},
		"longPollingMaxHeld": {line: "longPollingMaxHeld=50", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, 50, o.Broker.Limits.MaxHeldPulls)
		}},
		"longPollingMaxHeldPerConnection": {line: "longPollingMaxHeldPerConnection=7", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, 7, o.Broker.Limits.MaxHeldPullsPerConnection)
		}},
		"maxNewGroupsPerRequest": {line: "maxNewGroupsPerRequest=3", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, 3, o.Broker.Limits.MaxNewGroupsPerRequest)
		}},
		"maxNewGroupsPerConnection": {line: "maxNewGroupsPerConnection=9", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, 9, o.Broker.Limits.MaxNewGroupsPerConnection)
		}},
		"maxNewTopicsPerConnection": {line: "maxNewTopicsPerConnection=11", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, 11, o.Broker.Limits.MaxNewTopicsPerConnection)
		}},
	}
}
