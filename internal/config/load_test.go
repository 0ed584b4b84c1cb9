package config

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

func writeConf(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "broker.conf")
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	return p
}

func observed() (*zap.Logger, *observer.ObservedLogs) {
	core, logs := observer.New(zapcore.DebugLevel)
	return zap.New(core), logs
}

func TestBrokerDefaults(t *testing.T) {
	t.Setenv(EnvNamesrvAddr, "")
	b, err := LoadBroker("", nil, nil)
	require.NoError(t, err)
	home, err := os.UserHomeDir()
	require.NoError(t, err)

	require.Equal(t, "DefaultCluster", b.BrokerClusterName)
	host, err := os.Hostname()
	require.NoError(t, err)
	require.Equal(t, host, b.BrokerName)
	require.Equal(t, int64(0), b.BrokerID)
	require.Empty(t, b.NamesrvAddr)
	require.Nil(t, b.NamesrvAddrs())
	require.Equal(t, localIPv4(), b.BrokerIP1)
	require.Equal(t, b.BrokerIP1, b.BrokerIP2)
	require.Equal(t, 10911, b.ListenPort)
	require.Equal(t, 10912, b.HAListenPort)
	require.Equal(t, AsyncMaster, b.BrokerRole)
	require.Equal(t, AsyncFlush, b.FlushDiskType)
	require.Equal(t, 6, b.BrokerPermission)
	require.Equal(t, filepath.Join(home, "store"), b.StorePathRootDir)
	require.Equal(t, filepath.Join(home, "store", "commitlog"), b.StorePathCommitLog)
	require.Equal(t, 1073741824, b.MappedFileSizeCommitLog)
	require.Equal(t, 6000000, b.MappedFileSizeConsumeQueue)
	require.Equal(t, 4194304, b.MaxMessageSize)
	require.Equal(t, Millis(500), b.FlushIntervalCommitLog)
	require.Equal(t, 500*time.Millisecond, b.FlushIntervalCommitLog.Duration())
	require.Equal(t, 4, b.FlushCommitLogLeastPages)
	require.Equal(t, Millis(10000), b.FlushCommitLogThoroughInterval)
	require.Equal(t, Millis(1000), b.FlushIntervalConsumeQueue)
	require.Equal(t, 2, b.FlushConsumeQueueLeastPages)
	require.Equal(t, Millis(60000), b.FlushConsumeQueueThoroughInterval)
	require.Equal(t, 5*time.Second, b.SyncFlushTimeout.Duration())
	require.True(t, b.CheckCRCOnRecover)
	require.Equal(t, 5000000, b.MaxHashSlotNum)
	require.Equal(t, 20000000, b.MaxIndexNum)
	require.Equal(t, 64, b.MaxMsgsNumBatch)
	require.True(t, b.MessageIndexEnable)
	require.Equal(t, "04", b.DeleteWhen)
	require.Equal(t, 72, b.FileReservedTime)
	require.Equal(t, 75, b.DiskMaxUsedSpaceRatio)
	require.Equal(t, 85, b.DiskSpaceCleanForciblyRatio)
	require.Equal(t, 90, b.DiskSpaceWarningLevelRatio)
	require.Equal(t, Millis(10000), b.CleanResourceInterval)
	require.Equal(t, Millis(120000), b.DestroyMapedFileIntervalForcibly)
	require.True(t, b.AutoCreateTopicEnable)
	require.True(t, b.AutoCreateSubscriptionGroup)
	require.Equal(t, 8, b.DefaultTopicQueueNums)
	require.True(t, b.ClusterTopicEnable)
	require.True(t, b.BrokerTopicEnable)
	levels, err := b.DelayLevels()
	require.NoError(t, err)
	require.Len(t, levels, 18)
	require.Equal(t, 10*time.Second, levels[2])
	require.Equal(t, 2*time.Hour, levels[17])
	require.True(t, b.LongPollingEnable)
	require.Equal(t, Millis(1000), b.ShortPollingTimeMills)
	require.Equal(t, 40, b.AccessMessageInMemoryMaxRatio)
	require.False(t, b.SlaveReadEnable)
	require.Equal(t, Millis(30000), b.RegisterNameServerPeriod)
	require.Equal(t, Millis(6000), b.RegisterBrokerTimeoutMills)
	require.True(t, b.ForceRegister)
	require.False(t, b.CompressedRegister)
	require.Equal(t, Millis(120000), b.ChannelExpiredTimeout)
	require.Equal(t, Millis(5000), b.FlushConsumerOffsetInterval)
	require.Equal(t, Millis(10000), b.FlushDelayOffsetInterval)
	require.Equal(t, Millis(6000), b.TransactionTimeOut)
	require.Equal(t, 15, b.TransactionCheckMax)
	require.Equal(t, Millis(60000), b.TransactionCheckInterval)
	require.Equal(t, "DefaultRegion", b.RegionID)
	require.True(t, b.TraceOn)
	require.False(t, b.EnablePropertyFilter)
	require.Equal(t, Millis(200), b.WaitTimeMillsInSendQueue)
	require.True(t, b.BrokerFastFailureEnable)
	require.Equal(t, Millis(5000), b.HASendHeartbeatInterval)
	require.Equal(t, Millis(20000), b.HAHousekeepingInterval)
	require.Equal(t, 32768, b.HATransferBatchSize)
	require.Equal(t, 268435456, b.HASlaveFallbehindMax)
	require.Equal(t, MetricsDisable, b.MetricsExporterType)
	require.False(t, b.MetricsExporterType.Enabled())
	require.Equal(t, 5557, b.MetricsPromExporterPort)
	require.Equal(t, ":5557", b.MetricsAddr())
	require.Equal(t, b.BrokerIP1+":10911", b.BrokerAddr())
	require.Equal(t, b.BrokerIP2+":10912", b.HAServerAddr())
	require.NoError(t, DefaultBroker().Validate(), "code-built defaults validate too")
}

func TestApacheSampleBrokerConf(t *testing.T) {
	t.Setenv(EnvNamesrvAddr, "")
	lg, logs := observed()
	b, err := LoadBroker("testdata/apache-broker.conf", nil, lg)
	require.NoError(t, err)
	require.Equal(t, "DefaultCluster", b.BrokerClusterName)
	require.Equal(t, "broker-a", b.BrokerName)
	require.Equal(t, int64(0), b.BrokerID)
	require.Equal(t, "04", b.DeleteWhen)
	require.Equal(t, 48, b.FileReservedTime)
	require.Equal(t, AsyncMaster, b.BrokerRole)
	require.Equal(t, AsyncFlush, b.FlushDiskType)
	require.Zero(t, logs.FilterLevelExact(zapcore.WarnLevel).Len(), "%v", logs.All())

	s, err := LoadBroker("testdata/apache-broker-a-s.properties", nil, lg)
	require.NoError(t, err)
	require.Equal(t, Slave, s.BrokerRole)
	require.Equal(t, int64(1), s.BrokerID)
}

func TestCRLFAndContinuation(t *testing.T) {
	b, err := LoadBroker("testdata/crlf.conf", nil, nil)
	require.NoError(t, err)
	require.Equal(t, "crlf-broker", b.BrokerName)
	require.Equal(t, 20911, b.ListenPort)
	require.Equal(t, 20912, b.HAListenPort)
	require.Equal(t, []string{"127.0.0.1:9876", "127.0.0.2:9876"}, b.NamesrvAddrs())
}

func TestEveryValueType(t *testing.T) {
	p := writeConf(t, strings.Join([]string{
		"brokerName : broker-x   ",   // string, trailing blanks trimmed
		"brokerId 3",                 // int64, space separator
		"brokerRole=slave",           // enum, any case
		"flushDiskType = SYNC_FLUSH", // enum
		"listenPort=+20911",          // int with sign
		"haListenPort=30000",         // explicit HA port wins over listenPort+1
		"slaveReadEnable=TRUE",       // bool, any case
		"traceOn=0",                  // bool, numeric form
		"syncFlushTimeout=7000",      // Millis
		"shortPollingTimeMills=2500", // Millis from a Java long
		"storePathRootDir=/data/rmq",
		"metricsExporterType=2", // Java ordinal of PROM
		"metricsLabel=instance_id:i-1, zone : z1",
	}, "\n"))
	b, err := LoadBroker(p, nil, nil)
	require.NoError(t, err)
	require.Equal(t, "broker-x", b.BrokerName)
	require.Equal(t, int64(3), b.BrokerID)
	require.Equal(t, Slave, b.BrokerRole)
	require.Equal(t, SyncFlush, b.FlushDiskType)
	require.Equal(t, 20911, b.ListenPort)
	require.Equal(t, 30000, b.HAListenPort)
	require.True(t, b.SlaveReadEnable)
	require.False(t, b.TraceOn)
	require.Equal(t, 7*time.Second, b.SyncFlushTimeout.Duration())
	require.Equal(t, Millis(2500), b.ShortPollingTimeMills)
	require.Equal(t, "/data/rmq/commitlog", b.StorePathCommitLog)
	require.Equal(t, "/data/rmq/config", b.StorePathConfig())
	require.Equal(t, MetricsProm, b.MetricsExporterType)
	labels, err := b.MetricsLabels()
	require.NoError(t, err)
	require.Equal(t, map[string]string{"instance_id": "i-1", "zone": "z1"}, labels)
}

func TestCaseInsensitiveKeysLastWins(t *testing.T) {
	p := writeConf(t, "BROKERNAME=first\nbrokername=second\nBrokerIP1=10.1.2.3\n")
	b, err := LoadBroker(p, nil, nil)
	require.NoError(t, err)
	require.Equal(t, "second", b.BrokerName)
	require.Equal(t, "10.1.2.3", b.BrokerIP1)
}

func TestUnknownKeysWarn(t *testing.T) {
	p := writeConf(t, "brokerName=b\nbrokerNmae=typo\nsendMessageThreadPoolNums=16\n")
	lg, logs := observed()
	b, err := LoadBroker(p, nil, lg)
	require.NoError(t, err)
	require.Equal(t, "b", b.BrokerName)

	warns := logs.FilterLevelExact(zapcore.WarnLevel).All()
	require.Len(t, warns, 2)
	byKey := map[string]observer.LoggedEntry{}
	for _, w := range warns {
		byKey[w.ContextMap()["key"].(string)] = w
	}
	require.Contains(t, byKey, "brokerNmae", "the key is named as written")
	require.Equal(t, p+":2", byKey["brokerNmae"].ContextMap()["source"])
	require.Contains(t, byKey["brokerNmae"].Message, "unknown key")
	require.Contains(t, byKey, "sendMessageThreadPoolNums")
	require.Contains(t, byKey["sendMessageThreadPoolNums"].Message, "not supported")
}

func TestBadValuesNameTheKey(t *testing.T) {
	tests := []struct {
		line   string
		key    string
		reason string
	}{
		{"listenPort=abc", "listenPort", "whole number"},
		{"listenPort=", "listenPort", "whole number"},
		{"listenPort=70000", "listenPort", "port"},
		{"mappedFileSizeCommitLog=4294967296", "mappedFileSizeCommitLog", "out of range"},
		{"mappedFileSizeCommitLog=-1", "mappedFileSizeCommitLog", "greater than 0"},
		{"maxMessageSize=0", "maxMessageSize", "greater than 0"},
		{"fileReservedTime=-5", "fileReservedTime", "negative"},
		{"flushDiskType=FOO", "flushDiskType", "ASYNC_FLUSH, SYNC_FLUSH"},
		{"brokerRole=MASTER", "brokerRole", "ASYNC_MASTER"},
		{"metricsExporterType=7", "metricsExporterType", "0-3"},
		{"slaveReadEnable=yes", "slaveReadEnable", "true or false"},
		{"brokerRole=SLAVE", "brokerId", "SLAVE needs brokerId > 0"},
		{"diskMaxUsedSpaceRatio=120", "diskMaxUsedSpaceRatio", "percentage"},
		{"deleteWhen=4am", "deleteWhen", "00-23"},
		{"messageDelayLevel=1s 5x", "messageDelayLevel", "unit"},
		{"namesrvAddr=127.0.0.1", "namesrvAddr", "host:port"},
		{"namesrvAddr=127.0.0.1:9876;host:0", "namesrvAddr", "1-65535"},
		{"haListenPort=10911", "haListenPort", "differ"},
		{"maxMessageSize=1073741820", "maxMessageSize", "mappedFileSizeCommitLog"},
		{"brokerName=", "brokerName", "empty"},
		{"metricsLabel=a", "metricsLabel", "key:value"},
		{"brokerPermission=16", "brokerPermission", "0-15"},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			p := writeConf(t, "brokerName=b\n"+tt.line+"\n")
			_, err := LoadBroker(p, nil, nil)
			require.Error(t, err)
			require.Contains(t, err.Error(), tt.key+"=")
			require.Contains(t, err.Error(), tt.reason)
			require.Contains(t, valueErrorKeys(err), tt.key)
		})
	}
}

// valueErrorKeys lists the keys of the ValueErrors joined in err.
func valueErrorKeys(err error) []string {
	var keys []string
	var ve *ValueError
	if errors.As(err, &ve) {
		keys = append(keys, ve.Key)
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			keys = append(keys, valueErrorKeys(e)...)
		}
	}
	return keys
}

func TestParseErrorsNameLineAndAllProblems(t *testing.T) {
	p := writeConf(t, "listenPort=x\nflushDiskType=FOO\n")
	_, err := LoadBroker(p, nil, nil)
	require.Error(t, err)
	require.Contains(t, err.Error(), p+":1: listenPort=\"x\"")
	require.Contains(t, err.Error(), p+":2: flushDiskType=\"FOO\"")

	p = writeConf(t, "brokerName=\\u12\n")
	_, err = LoadBroker(p, nil, nil)
	require.ErrorContains(t, err, "line 1")

	_, err = LoadBroker(filepath.Join(t.TempDir(), "missing.conf"), nil, nil)
	require.ErrorContains(t, err, "missing.conf")
}

func TestOldSpellings(t *testing.T) {
	p := writeConf(t, "mapedFileSizeCommitLog=134217728\nmapedFileSizeConsumeQueue=600000\n")
	b, err := LoadBroker(p, nil, nil)
	require.NoError(t, err)
	require.Equal(t, 134217728, b.MappedFileSizeCommitLog)
	require.Equal(t, 600000, b.MappedFileSizeConsumeQueue)

	// The current spelling wins whatever the order.
	p = writeConf(t, "mappedFileSizeCommitLog=268435456\nmapedFileSizeCommitLog=134217728\n")
	b, err = LoadBroker(p, nil, nil)
	require.NoError(t, err)
	require.Equal(t, 268435456, b.MappedFileSizeCommitLog)

	p = writeConf(t, "mapedFileSizeCommitLog=oops\n")
	_, err = LoadBroker(p, nil, nil)
	require.ErrorContains(t, err, "mappedFileSizeCommitLog=\"oops\"")
}

func TestNamesrvAddrPrecedence(t *testing.T) {
	withFile := writeConf(t, "namesrvAddr=10.0.0.1:9876\n")
	without := writeConf(t, "brokerName=b\n")

	t.Setenv(EnvNamesrvAddr, "10.0.0.9:9876;10.0.0.8:9876")
	b, err := LoadBroker(without, nil, nil)
	require.NoError(t, err)
	require.Equal(t, []string{"10.0.0.9:9876", "10.0.0.8:9876"}, b.NamesrvAddrs(), "env when nothing else sets it")

	b, err = LoadBroker(withFile, nil, nil)
	require.NoError(t, err)
	require.Equal(t, "10.0.0.1:9876", b.NamesrvAddr, "the file beats the env")

	b, err = LoadBroker(withFile, map[string]string{"namesrvAddr": "10.0.0.2:9876"}, nil)
	require.NoError(t, err)
	require.Equal(t, "10.0.0.2:9876", b.NamesrvAddr, "the command line beats the file")

	t.Setenv(EnvNamesrvAddr, "bad")
	_, err = LoadBroker(without, nil, nil)
	require.ErrorContains(t, err, "namesrvAddr")
}

func TestOverrides(t *testing.T) {
	p := writeConf(t, "listenPort=20911\nbrokerName=file\n")
	b, err := LoadBroker(p, map[string]string{"listenport": "30911", "brokerName": "cli"}, nil)
	require.NoError(t, err)
	require.Equal(t, 30911, b.ListenPort)
	require.Equal(t, 30912, b.HAListenPort)
	require.Equal(t, "cli", b.BrokerName)

	_, err = LoadBroker(p, map[string]string{"noSuchKey": "1"}, nil)
	require.ErrorContains(t, err, "noSuchKey")

	_, err = LoadBroker(p, map[string]string{"listenPort": "x"}, nil)
	require.ErrorContains(t, err, "command line: listenPort=\"x\"")
}

func TestNormalization(t *testing.T) {
	p := writeConf(t, strings.Join([]string{
		"brokerId=2", // master: forced to 0
		"diskMaxUsedSpaceRatio=99",
		"diskSpaceWarningLevelRatio=20",
		"diskSpaceCleanForciblyRatio=95",
		"registerNameServerPeriod=5000",
		"mappedFileSizeConsumeQueue=1001",
		"metricsExporterType=OTLP_GRPC",
	}, "\n"))
	lg, logs := observed()
	b, err := LoadBroker(p, nil, lg)
	require.NoError(t, err)
	require.Equal(t, int64(0), b.BrokerID)
	require.Equal(t, 95, b.DiskMaxUsedSpaceRatio)
	require.Equal(t, 35, b.DiskSpaceWarningLevelRatio)
	require.Equal(t, 85, b.DiskSpaceCleanForciblyRatio)
	require.Equal(t, Millis(10000), b.RegisterNameServerPeriod)
	require.Equal(t, 1020, b.MappedFileSizeConsumeQueue)
	require.Equal(t, MetricsDisable, b.MetricsExporterType)
	require.Equal(t, 6, logs.FilterLevelExact(zapcore.WarnLevel).Len(), "%v", logs.All())

	// Validate on a code-built config rejects what the loader would have corrected.
	c := DefaultBroker()
	c.BrokerID = 1
	require.ErrorContains(t, c.Validate(), "must have brokerId 0")
	c = DefaultBroker()
	c.ListenPort = 0
	require.NoError(t, c.Validate())
	require.Equal(t, 0, c.HAPort(), "listenPort 0 leaves the HA port free too")
	require.Equal(t, 0, c.FastPort(), "and the VIP port")
	c.ListenPort = 1
	require.Equal(t, 0, c.FastPort(), "listenPort−2 below 1 is any free port, as Apache clamps it")
}

func TestEffectiveConfiguration(t *testing.T) {
	p := writeConf(t, "brokerName=broker-a\nflushDiskType=SYNC_FLUSH\n")
	b, err := LoadBroker(p, nil, nil)
	require.NoError(t, err)
	fields := b.Fields()
	require.Len(t, fields, len(brokerSchema().keys))
	for i := 1; i < len(fields); i++ {
		require.Less(t, fields[i-1].Key, fields[i].Key)
	}
	lg, logs := observed()
	b.LogEffective(lg)
	require.Equal(t, 1, logs.Len())
	msg := logs.All()[0].Message
	lines := strings.Split(msg, "\n")
	require.Contains(t, lines[0], "effective broker configuration")
	setAt, defaultsAt := slices.Index(lines, "  set or derived:"), slices.Index(lines, "  defaults:")
	require.True(t, setAt == 1 && defaultsAt > setAt, msg)
	set, defaults := lines[setAt+1:defaultsAt], lines[defaultsAt+1:]
	require.Contains(t, set, "    brokerName=broker-a")
	require.Contains(t, set, "    flushDiskType=SYNC_FLUSH")
	require.Contains(t, set, "    storePathCommitLog="+b.CommitLogDir(), "derived values count as set")
	require.Contains(t, defaults, "    flushIntervalCommitLog=500")
	require.Len(t, append(set, defaults...), len(fields), "every key once")
	require.Empty(t, logs.All()[0].Context, "one readable block, no fields")
}

// TestKeyOrigins: a key is RocketMQ's unless its entry says otherwise; the others are this
// implementation's own keys or Java system properties (tls.*), and the docs say so.
func TestKeyOrigins(t *testing.T) {
	notJava := func(names []string, origins []origin) (out []string) {
		for i, n := range names {
			if origins[i] != fromJava {
				out = append(out, n)
			}
			if strings.HasPrefix(n, "tls.") {
				require.Equal(t, systemProperty, origins[i], n)
			}
		}
		return out
	}
	var bn, nn []string
	var bo, no []origin
	for _, k := range brokerKeys() {
		bn, bo = append(bn, k.name), append(bo, k.origin)
	}
	for _, k := range namesrvKeys() {
		nn, no = append(nn, k.name), append(no, k.origin)
	}
	tls := []string{"tls.server.mode", "tls.server.certPath", "tls.server.keyPath", "tls.test.mode.enable"}
	limits := []string{"serverChannelMaxQueuedBytes", "serverMaxTotalQueuedBytes", "serverChannelMaxConcurrentRequests",
		"serverMaxConnections"}
	requestLimits := []string{"longPollingMaxSuspendMillis", "longPollingMaxHeld", "longPollingMaxHeldPerConnection",
		"maxNewGroupsPerRequest", "maxNewGroupsPerConnection", "maxNewTopicsPerConnection"}
	logs := []string{"logLevel", "logLevels", "logFormat", "logFile", "logFileMaxSizeMB", "logFileMaxAgeDays",
		"logFileMaxBackups", "logFileCompress"}
	limits = append(limits, logs...)
	scale := []string{"maxMappedConsumeQueueFiles", "consumeQueueSyncFSMin"}
	brokerOnly := append(append([]string{"aclConfigPath", "haAllowlist"}, requestLimits...), scale...)
	require.ElementsMatch(t, append(append(brokerOnly, limits...), tls...), notJava(bn, bo))
	require.ElementsMatch(t, append(append([]string{"brokerChannelExpiredTime", "metricsExporterType", "metricsPromExporterHost",
		"metricsPromExporterPort", "metricsLabel", "registerBrokerMaxTopics", "registerBrokerMaxBodyBytes",
		"kvConfigMaxValueBytes", "kvConfigMaxTotalBytes", "brokerRegistrationAllowlist", "adminWriteAllowlist"},
		limits...), tls...), notJava(nn, no))
}

func TestNamesrv(t *testing.T) {
	n, err := LoadNamesrv("", nil, nil)
	require.NoError(t, err)
	home, err := os.UserHomeDir()
	require.NoError(t, err)
	require.Equal(t, 9876, n.ListenPort)
	require.Equal(t, filepath.Join(home, "namesrv", "kvConfig.json"), n.KVConfigPath)
	require.Equal(t, 5*time.Second, n.ScanNotActiveBrokerInterval.Duration())
	require.Equal(t, 2*time.Minute, n.BrokerChannelExpiredTime.Duration())
	require.False(t, n.OrderMessageEnable)
	require.True(t, n.EnableAllTopicList)
	require.Equal(t, MetricsProm, n.MetricsExporterType, "the name server's metrics are on by default")
	require.Equal(t, 5558, n.MetricsPromExporterPort, "beside the broker's 5557")

	p := writeConf(t, "listenPort = 19876\nkvConfigPath=./data/kv.json\nbrokerChannelExpiredTime=30000\n"+
		"orderMessageEnable=true\nmetricsExporterType=PROM\nmetricsPromExporterPort=0\nclientRequestThreadPoolNums=4\n")
	lg, logs := observed()
	n, err = LoadNamesrv(p, map[string]string{"listenPort": "29876"}, lg)
	require.NoError(t, err)
	require.Equal(t, 29876, n.ListenPort)
	require.Equal(t, "./data/kv.json", n.KVConfigPath)
	require.Equal(t, Millis(30000), n.BrokerChannelExpiredTime)
	require.True(t, n.OrderMessageEnable)
	require.True(t, n.MetricsExporterType.Enabled())
	require.Equal(t, ":0", n.MetricsAddr())
	require.Equal(t, 1, logs.FilterMessageSnippet("not supported").Len())

	p = writeConf(t, "scanNotActiveBrokerInterval=0\nlistenPort=x\n")
	_, err = LoadNamesrv(p, nil, nil)
	require.ErrorContains(t, err, "listenPort=\"x\"")
	n = DefaultNamesrv()
	n.ScanNotActiveBrokerInterval = 0
	require.ErrorContains(t, n.Validate(), "scanNotActiveBrokerInterval")

	n.LogEffective(nil) // nil logger is allowed
}

func TestPickIPv4(t *testing.T) {
	ip := func(s ...string) (out []net.IP) {
		for _, x := range s {
			out = append(out, net.ParseIP(x))
		}
		return out
	}
	require.Equal(t, "10.1.1.1", pickIPv4(ip("127.0.0.1", "::1", "192.168.1.2", "10.1.1.1")))
	require.Equal(t, "192.168.1.3", pickIPv4(ip("127.0.0.1", "192.168.1.2", "192.168.1.3", "fe80::1")))
	require.Equal(t, "127.0.0.1", pickIPv4(ip("127.0.0.1", "169.254.1.1", "2001:db8::1")))
	require.Equal(t, "127.0.0.1", pickIPv4(nil))
}

func TestShippedConfigs(t *testing.T) {
	t.Setenv(EnvNamesrvAddr, "")
	lg, logs := observed()
	b, err := LoadBroker("../../configs/broker.conf", nil, lg)
	require.NoError(t, err)
	require.Equal(t, "broker-a", b.BrokerName)
	require.Equal(t, []string{"127.0.0.1:9876"}, b.NamesrvAddrs())
	require.Equal(t, "data/broker-a/store/commitlog", filepath.Clean(b.StorePathCommitLog))
	require.Equal(t, 134217728, b.MappedFileSizeCommitLog)
	require.True(t, b.MetricsExporterType.Enabled())

	n, err := LoadNamesrv("../../configs/namesrv.conf", nil, lg)
	require.NoError(t, err)
	require.Equal(t, 9876, n.ListenPort)
	require.Equal(t, "./data/namesrv/kvConfig.json", n.KVConfigPath)
	require.Zero(t, logs.FilterLevelExact(zapcore.WarnLevel).Len(), "%v", logs.All())
}

// FuzzLoadBroker: any file either loads into a config that validates, or fails with an error;
// it never panics.
func FuzzLoadBroker(f *testing.F) {
	for _, path := range []string{"testdata/apache-broker.conf", "testdata/apache-broker-a-s.properties",
		"testdata/crlf.conf", "../../configs/broker.conf"} {
		data, err := os.ReadFile(path)
		require.NoError(f, err)
		f.Add(data)
	}
	f.Add([]byte("listenPort=abc\nbrokerRole=slave\nbrokerId=-1\nmapedFileSizeCommitLog=1\n\x00=1\n=2"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "fuzz.conf")
		require.NoError(t, os.WriteFile(p, data, 0o644))
		b, err := LoadBroker(p, nil, zap.NewNop())
		if err != nil {
			require.Nil(t, b)
			return
		}
		require.NoError(t, b.Validate())
		require.NotEmpty(t, b.StorePathCommitLog)
	})
}

// TestNoEffectKeysWarn: a file that sets a key this implementation accepts but does not act on
// yet is told so at start-up, naming the key; keys that take effect are not.
func TestNoEffectKeysWarn(t *testing.T) {
	lg, logs := observed()
	_, err := LoadBroker(writeConf(t, "brokerIP1=127.0.0.1\nbrokerIP2=127.0.0.1\nmessageIndexSafe=true\n"+
		"waitTimeMillsInSendQueue=100\nstoreReplyMessageEnable=false\n"), nil, lg)
	require.NoError(t, err)
	warned := logs.FilterMessageSnippet("no effect yet")
	var keys []string
	for _, e := range warned.All() {
		keys = append(keys, e.ContextMap()["key"].(string))
	}
	require.ElementsMatch(t, []string{"messageIndexSafe", "waitTimeMillsInSendQueue"}, keys)
}
