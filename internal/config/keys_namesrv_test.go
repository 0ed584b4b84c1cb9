package config

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/logging"
)

type namesrvCase = keyCase[NamesrvOptions]

func namesrvCases() map[string]namesrvCase {
	return map[string]namesrvCase{
		"listenPort": {line: "listenPort=19876", want: func(t *testing.T, o NamesrvOptions) {
			require.Equal(t, "0.0.0.0:19876", o.Namesrv.ListenAddr)
		}},
		"bindAddress": {line: "bindAddress=127.0.0.1", want: func(t *testing.T, o NamesrvOptions) {
			require.Equal(t, "127.0.0.1:9876", o.Namesrv.ListenAddr)
		}},
		"kvConfigPath": {line: "kvConfigPath=/tmp/kv.json", want: func(t *testing.T, o NamesrvOptions) {
			require.Equal(t, "/tmp/kv.json", o.Namesrv.KVConfigPath)
		}, bad: [][2]string{{"kvConfigPath=", "must not be empty"}}},
		"productEnvName": {line: "productEnvName=test"},
		"clusterTest":    {line: "clusterTest=true"},
		"orderMessageEnable": {line: "orderMessageEnable=true", want: func(t *testing.T, o NamesrvOptions) {
			require.True(t, o.Namesrv.OrderMessageEnable)
		}},
		"returnOrderTopicConfigToBroker": {line: "returnOrderTopicConfigToBroker=false", want: func(t *testing.T, o NamesrvOptions) {
			require.False(t, o.Namesrv.ReturnOrderTopicConfigToBroker)
		}},
		"scanNotActiveBrokerInterval": {line: "scanNotActiveBrokerInterval=2000", want: func(t *testing.T, o NamesrvOptions) {
			require.Equal(t, 2*time.Second, o.Namesrv.ScanNotActiveBrokerInterval)
		}},
		"brokerChannelExpiredTime": {line: "brokerChannelExpiredTime=30000", want: func(t *testing.T, o NamesrvOptions) {
			require.Equal(t, 30*time.Second, o.Namesrv.BrokerChannelExpiredTime)
		}},
		"enableAllTopicList": {line: "enableAllTopicList=false", want: func(t *testing.T, o NamesrvOptions) {
			require.False(t, o.Namesrv.EnableAllTopicList)
		}},
		"enableTopicList": {line: "enableTopicList=false", want: func(t *testing.T, o NamesrvOptions) {
			require.False(t, o.Namesrv.EnableTopicList)
		}},
		"needWaitForService": {line: "needWaitForService=true", want: func(t *testing.T, o NamesrvOptions) {
			require.True(t, o.Namesrv.NeedWaitForService)
		}},
		"waitSecondsForService": {line: "waitSecondsForService=10", want: func(t *testing.T, o NamesrvOptions) {
			require.Equal(t, 10*time.Second, o.Namesrv.WaitForService)
		}},
		"configBlackList": {line: "configBlackList=listenPort;enableTopicList", want: func(t *testing.T, o NamesrvOptions) {
			require.Equal(t, []string{"listenPort", "enableTopicList"}, o.Namesrv.ConfigBlackList)
		}},
		"deleteTopicWithBrokerRegistration": {line: "deleteTopicWithBrokerRegistration=true", want: func(t *testing.T, o NamesrvOptions) {
			require.True(t, o.Namesrv.DeleteTopicWithBrokerRegistration)
		}},
		"metricsExporterType": {line: "metricsExporterType=disable", want: func(t *testing.T, o NamesrvOptions) {
			require.Equal(t, MetricsListener{Enabled: false, Addr: ":5558"}, o.Metrics, "on by default; the key turns it off")
		}},
		"metricsPromExporterHost": {line: "metricsPromExporterHost=127.0.0.1", want: func(t *testing.T, o NamesrvOptions) {
			require.Equal(t, "127.0.0.1:5558", o.Metrics.Addr)
		}},
		"metricsPromExporterPort": {line: "metricsPromExporterPort=0", want: func(t *testing.T, o NamesrvOptions) {
			require.Equal(t, ":0", o.Metrics.Addr)
		}},
		"metricsLabel": {line: "metricsLabel=zone:z1", want: func(t *testing.T, o NamesrvOptions) {
			require.Equal(t, map[string]string{"zone": "z1"}, o.Namesrv.MetricLabels)
		}, bad: [][2]string{{"metricsLabel=1x:y", "name must match"}}},
		"tls.server.mode": {line: "tls.server.mode=ENFORCING", want: func(t *testing.T, o NamesrvOptions) {
			require.Equal(t, TLSEnforcing, o.TLS.TLSServerMode)
		}},
		"tls.server.certPath": {line: "tls.server.certPath=/c.pem\ntls.server.keyPath=/k.pem", want: func(t *testing.T, o NamesrvOptions) {
			require.Equal(t, "/c.pem", o.TLS.TLSServerCertPath)
		}, bad: [][2]string{{"tls.server.keyPath=/k.pem", "must be set together"}}},
		"tls.server.keyPath": {line: "tls.server.keyPath=/k.pem\ntls.server.certPath=/c.pem", want: func(t *testing.T, o NamesrvOptions) {
			require.Equal(t, "/k.pem", o.TLS.TLSServerKeyPath)
		}, bad: [][2]string{{"tls.server.certPath=/c.pem", "must be set together"}}},
		"tls.test.mode.enable": {line: "tls.test.mode.enable=false", want: func(t *testing.T, o NamesrvOptions) {
			require.False(t, o.TLS.TLSTestModeEnable)
		}},
	}
}

// TestEveryNamesrvKeyLands is TestEveryBrokerKeyLands for namesrv.conf.
func TestEveryNamesrvKeyLands(t *testing.T) {
	load := func(t *testing.T, text string) (NamesrvOptions, error) {
		n, err := LoadNamesrv(writeConf(t, text+"\n"), nil, nil)
		if err != nil {
			return NamesrvOptions{}, err
		}
		return n.Options()
	}
	// ConfigKeys holds every key, for GET_NAMESRV_CONFIG: it is the effective-configuration text.
	split := func(o NamesrvOptions) (NamesrvOptions, string) {
		var text strings.Builder
		for _, k := range o.Namesrv.ConfigKeys {
			text.WriteString(k.Name + "=" + k.Value + "\n")
		}
		o.Namesrv.ConfigKeys = nil
		return o, text.String()
	}
	runKeyCases(t, namesrvKeys(), concatCases(namesrvCases(), namesrvLimitCases(),
		logCases(func(o NamesrvOptions) logging.Options { return o.Log })), load, split)
}
