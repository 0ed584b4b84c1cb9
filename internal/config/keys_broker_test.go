package config

import (
	"encoding"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/logging"

	"github.com/rocketgo/rocketgo/internal/store"
)

// keyCase is one key's case in the table tests: line (broker.conf text with a non-default value,
// read after the context lines with) and what it must produce in the options. want is nil exactly
// for the keys that land nowhere; their case checks the options do not change. bad is a line with
// a value the key refuses, with a piece of the reason; numbers, booleans and enums get their bad
// values from their type (badValues) and need none.
type keyCase[T any] struct {
	with, line string
	want       func(t *testing.T, o T)
	bad        [][2]string // {line, reason}
}

type brokerCase = keyCase[BrokerOptions]

func brokerCases() map[string]brokerCase {
	return concatCases(identityCases(), storeCases(), flushCleanupCases(), haPullCases(), popCases(), topicCases(),
		registrationFlowCases(), brokerMetricsSecurityCases(), brokerLimitCases(), requestLimitCases(),
		logCases(func(o BrokerOptions) logging.Options { return o.Log }), timerCases())
}

func concatCases[T any](parts ...map[string]keyCase[T]) map[string]keyCase[T] {
	out := map[string]keyCase[T]{}
	for _, p := range parts {
		for k, v := range p {
			out[k] = v
		}
	}
	return out
}

func identityCases() map[string]brokerCase {
	return map[string]brokerCase{
		"brokerClusterName": {line: "brokerClusterName=ProdCluster", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, "ProdCluster", o.Broker.ClusterName)
		}, bad: [][2]string{{"brokerClusterName=", "empty"}}},
		"brokerName": {line: "brokerName=broker-b", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, "broker-b", o.Broker.BrokerName)
		}, bad: [][2]string{{"brokerName=", "empty"}}},
		"brokerId": {with: "brokerRole=SLAVE\nbrokerId=1", line: "brokerId=2", want: func(t *testing.T, o BrokerOptions) {
			require.EqualValues(t, 2, o.Broker.BrokerID)
		}},
		"namesrvAddr": {line: "namesrvAddr=10.0.0.1:9876;10.0.0.2:9876", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, []string{"10.0.0.1:9876", "10.0.0.2:9876"}, o.Broker.NamesrvAddrs)
		}, bad: [][2]string{{"namesrvAddr=127.0.0.1", "host:port"}}},
		"brokerIP1": {line: "brokerIP1=10.1.2.3", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, "10.1.2.3:10911", o.Broker.BrokerAddr)
		}, bad: [][2]string{{"brokerIP1=", "empty"}}},
		"brokerIP2": {line: "brokerIP2=10.9.9.9", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, "10.9.9.9:10912", o.Broker.HAServerAddr)
		}, bad: [][2]string{{"brokerIP2=", "empty"}}},
		"bindAddress": {line: "bindAddress=127.0.0.2", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, "127.0.0.2:10911", o.Broker.ListenAddr)
			require.Equal(t, "127.0.0.2:10912", o.Broker.HA.ListenAddr)
			require.Equal(t, "127.0.0.2:10909", o.Broker.FastListenAddr)
		}},
		"listenPort": {line: "listenPort=10921", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, "0.0.0.0:10921", o.Broker.ListenAddr)
			require.True(t, strings.HasSuffix(o.Broker.BrokerAddr, ":10921"), o.Broker.BrokerAddr)
			require.Equal(t, "0.0.0.0:10922", o.Broker.HA.ListenAddr, "haListenPort follows listenPort+1")
			require.Equal(t, "0.0.0.0:10919", o.Broker.FastListenAddr, "the VIP channel follows listenPort−2")
		}},
		"fastListenPort": {line: "fastListenPort=30001", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, "0.0.0.0:30001", o.Broker.FastListenAddr)
		}, bad: [][2]string{{"fastListenPort=10911", "differ"}, {"fastListenPort=10912", "differ"}}},
		"haListenPort": {line: "haListenPort=30000", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, "0.0.0.0:30000", o.Broker.HA.ListenAddr)
			require.True(t, strings.HasSuffix(o.Broker.HAServerAddr, ":30000"), o.Broker.HAServerAddr)
		}, bad: [][2]string{{"haListenPort=10911", "differ"}}},
		"brokerPermission": {line: "brokerPermission=4", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, 4, o.Broker.BrokerPermission)
		}, bad: [][2]string{{"brokerPermission=16", "0-15"}}},
		"regionId": {line: "regionId=eu-1", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, "eu-1", o.Broker.RegionID)
		}},
		"traceOn": {line: "traceOn=false", want: func(t *testing.T, o BrokerOptions) { require.False(t, o.Broker.TraceOn) }},
	}
}

func storeCases() map[string]brokerCase {
	return map[string]brokerCase{
		"brokerRole": {with: "brokerId=1", line: "brokerRole=SLAVE", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, store.RoleSlave, o.Broker.HA.Role)
			require.True(t, o.Broker.IsSlave())
		}, bad: [][2]string{{"brokerRole=MASTER", "ASYNC_MASTER"}}},
		"flushDiskType": {line: "flushDiskType=SYNC_FLUSH", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, store.SyncFlush, o.Broker.Store.FlushType)
		}},
		"storePathRootDir": {line: "storePathRootDir=/data/rmq", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, "/data/rmq", o.Broker.Store.RootDir)
			require.Equal(t, "/data/rmq/commitlog", o.Broker.Store.CommitLogDir)
		}, bad: [][2]string{{"storePathRootDir=", "empty"}}},
		"storePathCommitLog": {line: "storePathCommitLog=/fast/commitlog", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, "/fast/commitlog", o.Broker.Store.CommitLogDir)
		}},
		"mappedFileSizeCommitLog": {line: "mapedFileSizeCommitLog=67108864", want: func(t *testing.T, o BrokerOptions) {
			require.EqualValues(t, 67108864, o.Broker.Store.CommitLogSegmentSize)
		}, bad: [][2]string{{"mappedFileSizeCommitLog=4294967296", "out of range"}}},
		"mappedFileSizeConsumeQueue": {line: "mappedFileSizeConsumeQueue=600000", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, 30000, o.Broker.Store.CQEntriesPerFile)
		}},
		"maxMessageSize": {line: "maxMessageSize=1048576", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, 1048576, o.Broker.Store.MaxMessageSize)
		}, bad: [][2]string{{"maxMessageSize=1073741820", "mappedFileSizeCommitLog"}}},
		"checkCRCOnRecover": {line: "checkCRCOnRecover=false", want: func(t *testing.T, o BrokerOptions) {
			require.False(t, o.Broker.Store.CheckCRCOnRecover)
		}},
		"messageIndexEnable": {line: "messageIndexEnable=false", want: func(t *testing.T, o BrokerOptions) {
			require.False(t, o.Broker.Store.MessageIndexEnable)
		}},
		"messageIndexSafe": {line: "messageIndexSafe=true"},
		"maxHashSlotNum": {line: "maxHashSlotNum=1000", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, 1000, o.Broker.Store.MaxHashSlotNum)
		}},
		"maxIndexNum": {line: "maxIndexNum=4000", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, 4000, o.Broker.Store.MaxIndexNum)
		}},
		"maxMsgsNumBatch": {line: "maxMsgsNumBatch=16", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, 16, o.Broker.Store.MaxMsgsNumBatch)
		}},
		"defaultQueryMaxNum": {line: "defaultQueryMaxNum=8", want: func(t *testing.T, o BrokerOptions) {
			require.Equal(t, 8, o.Broker.DefaultQueryMaxNum)
		}},
	}
}

func flushCleanupCases() map[string]brokerCase {
	st := func(get func(o *store.Options) any, want any) func(t *testing.T, o BrokerOptions) {
		return func(t *testing.T, o BrokerOptions) { require.Equal(t, want, get(&o.Broker.Store)) }
	}
	return map[string]brokerCase{
		"flushIntervalCommitLog": {line: "flushIntervalCommitLog=200",
			want: st(func(o *store.Options) any { return o.FlushIntervalCommitLog }, 200*time.Millisecond)},
		"flushCommitLogLeastPages": {line: "flushCommitLogLeastPages=0",
			want: st(func(o *store.Options) any { return o.FlushCommitLogLeastPages }, 0)},
		"flushCommitLogThoroughInterval": {line: "flushCommitLogThoroughInterval=3000",
			want: st(func(o *store.Options) any { return o.FlushCommitLogThoroughInterval }, 3*time.Second)},
		"flushIntervalConsumeQueue": {line: "flushIntervalConsumeQueue=700",
			want: st(func(o *store.Options) any { return o.FlushIntervalConsumeQueue }, 700*time.Millisecond)},
		"flushConsumeQueueLeastPages": {line: "flushConsumeQueueLeastPages=5",
			want: st(func(o *store.Options) any { return o.FlushConsumeQueueLeastPages }, 5)},
		"flushConsumeQueueThoroughInterval": {line: "flushConsumeQueueThoroughInterval=30000",
			want: st(func(o *store.Options) any { return o.FlushConsumeQueueThoroughInterval }, 30*time.Second)},
		"syncFlushTimeout": {line: "syncFlushTimeout=7000",
			want: st(func(o *store.Options) any { return o.SyncFlushTimeout }, 7*time.Second)},
		"maxMappedConsumeQueueFiles": {line: "maxMappedConsumeQueueFiles=1024",
			want: st(func(o *store.Options) any { return o.MaxMappedConsumeQueueFiles }, 1024),
			bad:  [][2]string{{"maxMappedConsumeQueueFiles=-1", ""}}},
		"consumeQueueSyncFSMin": {line: "consumeQueueSyncFSMin=64",
			want: st(func(o *store.Options) any { return o.ConsumeQueueSyncFSMin }, 64)},
		"deleteWhen": {line: "deleteWhen=03;05", want: st(func(o *store.Options) any { return o.DeleteWhen }, []int{3, 5}),
			bad: [][2]string{{"deleteWhen=4am", "00-23"}}},
		"fileReservedTime": {line: "fileReservedTime=48",
			want: st(func(o *store.Options) any { return o.FileReservedTime }, 48*time.Hour)},
		"diskMaxUsedSpaceRatio": {line: "diskMaxUsedSpaceRatio=60",
			want: st(func(o *store.Options) any { return o.DiskMaxUsedSpaceRatio }, 60)},
		"diskSpaceCleanForciblyRatio": {line: "diskSpaceCleanForciblyRatio=70",
			want: st(func(o *store.Options) any { return o.DiskSpaceCleanForciblyRatio }, 70)},
		"diskSpaceWarningLevelRatio": {line: "diskSpaceWarningLevelRatio=80",
			want: st(func(o *store.Options) any { return o.DiskSpaceWarningLevelRatio }, 80)},
		"cleanResourceInterval": {line: "cleanResourceInterval=5000",
			want: st(func(o *store.Options) any { return o.CleanResourceInterval }, 5*time.Second)},
		"deleteCommitLogFilesInterval":    {line: "deleteCommitLogFilesInterval=10"},
		"deleteConsumeQueueFilesInterval": {line: "deleteConsumeQueueFilesInterval=10"},
		"destroyMapedFileIntervalForcibly": {line: "destroyMapedFileIntervalForcibly=60000",
			want: st(func(o *store.Options) any { return o.DestroyMapedFileIntervalForcibly }, time.Minute)},
		"redeleteHangedFileInterval": {line: "redeleteHangedFileInterval=60000"},
		"cleanFileForciblyEnable": {line: "cleanFileForciblyEnable=false",
			want: st(func(o *store.Options) any { return o.CleanFileForciblyEnable }, false)},
	}
}

// TestEveryBrokerKeyLands: for every key of broker.conf, a non-default value lands where its
// entry says (or, for the keys without effect, changes nothing but GET_BROKER_CONFIG's text),
// and bad values fail naming the key. A key without a case fails.
func TestEveryBrokerKeyLands(t *testing.T) {
	t.Setenv(EnvNamesrvAddr, "")
	t.Setenv(EnvRocketMQHome, "")
	load := func(t *testing.T, text string) (BrokerOptions, error) {
		b, err := LoadBroker(writeConf(t, "brokerIP1=127.0.0.1\nbrokerIP2=127.0.0.1\n"+text+"\n"), nil, nil)
		if err != nil {
			return BrokerOptions{}, err
		}
		return b.Options()
	}
	runKeyCases(t, brokerKeys(), brokerCases(), load, func(o BrokerOptions) (BrokerOptions, string) {
		text := o.Broker.ConfigText()
		o.Broker.ConfigText = nil
		if o.Broker.ACL != nil && filepath.Base(o.Broker.ACL.Path) == ACLFileName {
			o.Broker.ACL.Path = ACLFileName // the default sits next to the file, in a new directory each time
		}
		return o, text
	})
}

// runKeyCases runs the cases of table. split removes from the options what differs between two
// files anyway and returns it as the effective-configuration text, or "" when there is none.
func runKeyCases[C, T any](t *testing.T, table []key[C, T], cases map[string]keyCase[T],
	load func(*testing.T, string) (T, error), split func(T) (T, string)) {
	for _, k := range table {
		if k.field == nil {
			continue
		}
		tc, ok := cases[k.name]
		if !ok {
			t.Errorf("key %s has no case", k.name)
			continue
		}
		delete(cases, k.name)
		t.Run(k.name, func(t *testing.T) {
			require.Equal(t, k.to == nil, tc.want == nil, "want is nil exactly for the keys that land nowhere")
			base, err := load(t, tc.with)
			require.NoError(t, err)
			got, err := load(t, tc.with+"\n"+tc.line)
			require.NoError(t, err)
			base, _ = split(base)
			got, text := split(got)
			if tc.want == nil {
				require.Equal(t, base, got, "the key lands nowhere")
			} else {
				require.NotEqual(t, base, got, "a non-default value changes the options")
				tc.want(t, got)
			}
			if text != "" {
				_, value, _ := strings.Cut(strings.Split(strings.TrimSpace(tc.line), "\n")[0], "=")
				require.Contains(t, strings.ToLower(text), strings.ToLower(k.name+"="+value))
			}
			var c C
			for _, bad := range append(badValues(k, k.value(&c)), tc.bad...) {
				_, err := load(t, tc.with+"\n"+bad[0])
				require.Error(t, err, bad[0])
				require.Contains(t, err.Error(), k.name+"=", bad[0])
				require.Contains(t, err.Error(), bad[1], bad[0])
				require.Contains(t, valueErrorKeys(err), k.name, bad[0])
			}
		})
	}
	for name := range cases {
		t.Errorf("case %s is not a key", name)
	}
}

// badValues are the values k's type or range refuses, each with a piece of the reason.
func badValues[C, T any](k key[C, T], v reflect.Value) [][2]string {
	line := func(value, reason string) [2]string { return [2]string{k.name + "=" + value, reason} }
	if v.Type() == reflect.TypeOf(Allowlist{}) {
		return [][2]string{line("NOPE", "want an IP address or a CIDR prefix"), line("10.0.0.0/33", "CIDR")}
	}
	if _, ok := v.Addr().Interface().(encoding.TextUnmarshaler); ok {
		return [][2]string{line("NOPE", "want one of")}
	}
	switch v.Kind() {
	case reflect.Bool:
		return [][2]string{line("maybe", "true or false")}
	case reflect.Int, reflect.Int64:
		ranges := map[check][2]string{positive: {"-1", "greater than 0"}, nonNegative: {"-1", "negative"},
			port: {"70000", "port 0-65535"}, percent: {"101", "percentage 0-100"}}
		r := ranges[k.check]
		return [][2]string{line("x", "whole number"), line(r[0], r[1])}
	}
	return nil
}
