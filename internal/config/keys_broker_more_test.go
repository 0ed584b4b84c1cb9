package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func haPullCases() map[string]brokerCase {
	return map[string]brokerCase{
		"haSendHeartbeatInterval": {line: "haSendHeartbeatInterval=1000", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, time.Second, o.Broker.HA.HeartbeatInterval)
		}},
		"haHousekeepingInterval": {line: "haHousekeepingInterval=7000", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, 7*time.Second, o.Broker.HA.HousekeepingInterval)
		}},
		"haTransferBatchSize": {line: "haTransferBatchSize=65536", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, 65536, o.Broker.HA.TransferBatchSize)
		}},
		"haSlaveFallbehindMax": {line: "haSlaveFallbehindMax=1048576", want: func(t *testing.T, o BrokerOptions) {
			require.EqualValues(t, 1<<20, o.Broker.HA.SlaveFallbehindMax)
		}},
		"haMasterAddress": {line: "haMasterAddress=10.0.0.5:10912", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, "10.0.0.5:10912", o.Broker.HA.MasterAddress)
		}},
		"slaveTimeout": {line: "slaveTimeout=2500", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, 2500*time.Millisecond, o.Broker.HA.SlaveTimeout)
		}},
		"slaveReadEnable": {line: "slaveReadEnable=true", want: func(t *testing.T, o BrokerOptions) {
			require.True(t, o.Broker.SlaveReadEnable)
		}},
		"longPollingEnable": {line: "longPollingEnable=false", want: func(t *testing.T, o BrokerOptions) {
			require.False(t, o.Broker.LongPollingEnable)
		}},
		"shortPollingTimeMills": {line: "shortPollingTimeMills=2500", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, 2500*time.Millisecond, o.Broker.ShortPollingTime)
		}},
		"accessMessageInMemoryMaxRatio": {line: "accessMessageInMemoryMaxRatio=30", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, 30, o.Broker.Store.AccessMessageInMemoryMaxRatio)
		}},
		"maxTransferBytesOnMessageInMemory": {line: "maxTransferBytesOnMessageInMemory=1024", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, 1024, o.Broker.Store.MaxTransferBytesOnMessageInMemory)
		}},
		"maxTransferCountOnMessageInMemory": {line: "maxTransferCountOnMessageInMemory=3", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, 3, o.Broker.Store.MaxTransferCountOnMessageInMemory)
		}},
		"maxTransferBytesOnMessageInDisk": {line: "maxTransferBytesOnMessageInDisk=2048", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, 2048, o.Broker.Store.MaxTransferBytesOnMessageInDisk)
		}},
		"maxTransferCountOnMessageInDisk": {line: "maxTransferCountOnMessageInDisk=2", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, 2, o.Broker.Store.MaxTransferCountOnMessageInDisk)
		}},
		"notifyConsumerIdsChangedEnable": {line: "notifyConsumerIdsChangedEnable=false", want: func(t *testing.T, o BrokerOptions) {
			require.False(t, o.Broker.NotifyConsumerIdsChangedEnable)
		}},
		"litePullMessageEnable": {line: "litePullMessageEnable=false", want: func(t *testing.T, o BrokerOptions) {
			require.False(t, o.Broker.LitePullMessageEnable)
		}},
	}
}

func topicCases() map[string]brokerCase {
	return map[string]brokerCase{
		"autoCreateTopicEnable": {line: "autoCreateTopicEnable=false", want: func(t *testing.T, o BrokerOptions) {
			require.False(t, o.Broker.AutoCreateTopicEnable)
		}},
		"autoCreateSubscriptionGroup": {line: "autoCreateSubscriptionGroup=false", want: func(t *testing.T, o BrokerOptions) {
			require.False(t, o.Broker.AutoCreateSubscriptionGroup)
		}},
		"defaultTopicQueueNums": {line: "defaultTopicQueueNums=4", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, 4, o.Broker.DefaultTopicQueueNums)
		}},
		"clusterTopicEnable": {line: "clusterTopicEnable=false", want: func(t *testing.T, o BrokerOptions) {
			require.False(t, o.Broker.ClusterTopicEnable)
		}},
		"brokerTopicEnable": {line: "brokerTopicEnable=false", want: func(t *testing.T, o BrokerOptions) {
			require.False(t, o.Broker.BrokerTopicEnable)
		}},
		"traceTopicEnable": {line: "traceTopicEnable=true", want: func(t *testing.T, o BrokerOptions) {
			require.True(t, o.Broker.TraceTopicEnable)
		}},
		"msgTraceTopicName": {line: "msgTraceTopicName=MY_TRACE", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, "MY_TRACE", o.Broker.MsgTraceTopicName)
		}},
		"enablePropertyFilter": {line: "enablePropertyFilter=true", want: func(t *testing.T, o BrokerOptions) {
			require.True(t, o.Broker.EnablePropertyFilter)
		}},
		"filterSupportRetry": {line: "filterSupportRetry=true"},
		"storeReplyMessageEnable": {line: "storeReplyMessageEnable=false", want: func(t *testing.T, o BrokerOptions) {
			require.False(t, o.Broker.StoreReplyMessageEnable)
		}},
		"messageDelayLevel": {line: "messageDelayLevel=1s 2m 3h", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, []time.Duration{time.Second, 2 * time.Minute, 3 * time.Hour}, o.Broker.Store.DelayLevels)
		}, bad: [][2]string{{"messageDelayLevel=1s 5x", "unit"}}},
		"flushDelayOffsetInterval": {line: "flushDelayOffsetInterval=2000", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, 2*time.Second, o.Broker.FlushDelayOffsetInterval)
		}},
		"transactionTimeOut": {line: "transactionTimeOut=3000", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, 3*time.Second, o.Broker.TransactionTimeOut)
		}},
		"transactionCheckMax": {line: "transactionCheckMax=5", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, 5, o.Broker.TransactionCheckMax)
		}},
		"transactionCheckInterval": {line: "transactionCheckInterval=30000", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, 30*time.Second, o.Broker.TransactionCheckInterval)
		}},
		"rejectTransactionMessage": {line: "rejectTransactionMessage=true", want: func(t *testing.T, o BrokerOptions) {
			require.True(t, o.Broker.RejectTransactionMessage)
		}},
	}
}

func registrationFlowCases() map[string]brokerCase {
	return map[string]brokerCase{
		"registerNameServerPeriod": {line: "registerNameServerPeriod=20000", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, 20*time.Second, o.Broker.RegisterPeriod)
		}},
		"registerBrokerTimeoutMills": {line: "registerBrokerTimeoutMills=3000", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, 3*time.Second, o.Broker.RegisterTimeout)
		}},
		"forceRegister": {line: "forceRegister=false", want: func(t *testing.T, o BrokerOptions) {
			require.False(t, o.Broker.ForceRegister)
		}},
		"compressedRegister": {line: "compressedRegister=true", want: func(t *testing.T, o BrokerOptions) {
			require.True(t, o.Broker.CompressedRegister)
		}},
		"channelExpiredTimeout": {line: "channelExpiredTimeout=60000", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, time.Minute, o.Broker.ChannelExpiredTimeout)
		}},
		"flushConsumerOffsetInterval": {line: "flushConsumerOffsetInterval=1000", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, time.Second, o.Broker.FlushConsumerOffsetInterval)
		}},
		"brokerFastFailureEnable":         {line: "brokerFastFailureEnable=false"},
		"waitTimeMillsInSendQueue":        {line: "waitTimeMillsInSendQueue=100"},
		"waitTimeMillsInPullQueue":        {line: "waitTimeMillsInPullQueue=100"},
		"waitTimeMillsInHeartbeatQueue":   {line: "waitTimeMillsInHeartbeatQueue=100"},
		"waitTimeMillsInTransactionQueue": {line: "waitTimeMillsInTransactionQueue=100"},
		"osPageCacheBusyTimeOutMills": {line: "osPageCacheBusyTimeOutMills=500", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, 500*time.Millisecond, o.Broker.Store.OSPageCacheBusyTimeout)
		}},
	}
}

func brokerMetricsSecurityCases() map[string]brokerCase {
	return map[string]brokerCase{
		"metricsExporterType": {line: "metricsExporterType=PROM", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, MetricsListener{Enabled: true, Addr: ":5557"}, o.Metrics)
		}, bad: [][2]string{{"metricsExporterType=7", "0-3"}}},
		"metricsPromExporterHost": {line: "metricsPromExporterHost=127.0.0.1", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, "127.0.0.1:5557", o.Metrics.Addr)
		}},
		"metricsPromExporterPort": {line: "metricsPromExporterPort=5558", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, ":5558", o.Metrics.Addr)
		}},
		"metricsLabel": {line: "metricsLabel=zone:z1", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, map[string]string{"zone": "z1"}, o.Broker.MetricsExtra)
		}, bad: [][2]string{{"metricsLabel=a", "key:value"}}},
		"aclEnable": {line: "aclEnable=true", want: func(t *testing.T, o BrokerOptions) {
			require.NotNil(t, o.Broker.ACL)
			require.Equal(t, ACLFileName, o.Broker.ACL.Path)
		}},
		"aclConfigPath": {with: "aclEnable=true", line: "aclConfigPath=/srv/acl.yml", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, "/srv/acl.yml", o.Broker.ACL.Path)
		}},
		"tls.server.mode": {line: "tls.server.mode=disabled", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, TLSDisabled, o.TLS.TLSServerMode)
		}, bad: [][2]string{{"tls.server.mode=enforcing\ntls.test.mode.enable=false", "enforcing needs"}}},
		"tls.server.certPath": {line: "tls.server.certPath=/c.pem\ntls.server.keyPath=/k.pem", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, "/c.pem", o.TLS.TLSServerCertPath)
		}, bad: [][2]string{{"tls.server.keyPath=/k.pem", "must be set together"}}},
		"tls.server.keyPath": {line: "tls.server.keyPath=/k.pem\ntls.server.certPath=/c.pem", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, "/k.pem", o.TLS.TLSServerKeyPath)
		}, bad: [][2]string{{"tls.server.certPath=/c.pem", "must be set together"}}},
		"tls.test.mode.enable": {line: "tls.test.mode.enable=false", want: func(t *testing.T, o BrokerOptions) {
			require.False(t, o.TLS.TLSTestModeEnable)
		}},
	}
}
