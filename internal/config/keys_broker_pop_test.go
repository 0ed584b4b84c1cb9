package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func popCases() map[string]brokerCase {
	return map[string]brokerCase{
		"reviveQueueNum": {line: "reviveQueueNum=4", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, 4, o.Broker.Pop.ReviveQueueNum)
		}},
		"reviveInterval": {line: "reviveInterval=250", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, 250*time.Millisecond, o.Broker.Pop.ReviveInterval)
		}},
		"popFromRetryProbability": {line: "popFromRetryProbability=50", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, 50, o.Broker.Pop.PopFromRetryProbability)
		}},
		"popPollingSize": {line: "popPollingSize=16", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, 16, o.Broker.Pop.PollingSize)
		}},
		"maxPopPollingSize": {line: "maxPopPollingSize=64", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, 64, o.Broker.Pop.MaxPollingSize)
		}},
		"serverLoadBalancerEnable": {line: "serverLoadBalancerEnable=false", want: func(t *testing.T, o BrokerOptions) {
			require.True(t, o.Broker.Pop.NoServerLoadBalancer)
		}},
		"defaultMessageRequestMode": {line: "defaultMessageRequestMode=pop", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, "POP", o.Broker.Pop.DefaultMessageRequestMode)
		}},
		"defaultPopShareQueueNum": {line: "defaultPopShareQueueNum=2", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, 2, o.Broker.Pop.DefaultPopShareQueueNum)
		}},
	}
}
