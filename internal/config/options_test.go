package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/store"
)

// TestBrokerOptionsFromConf maps broker.conf keys onto the broker's and the store's options.
func TestBrokerOptionsFromConf(t *testing.T) {
	path := writeConf(t, `
brokerClusterName = ProdCluster
brokerName = broker-b
brokerId = 0
brokerIP1 = 10.1.2.3
listenPort = 10921
storePathRootDir = /data/rmq
mappedFileSizeCommitLog = 67108864
flushDiskType = SYNC_FLUSH
deleteWhen = 03;05
fileReservedTime = 48
messageDelayLevel = 1s 2m 3h
autoCreateTopicEnable = false
`)
	cfg, err := LoadBroker(path, map[string]string{"namesrvAddr": "10.0.0.1:9876;10.0.0.2:9876"}, nil)
	require.NoError(t, err)
	bo, err := cfg.Options()
	require.NoError(t, err)
	o := bo.Broker
	require.Equal(t, "ProdCluster", o.ClusterName)
	require.Equal(t, "broker-b", o.BrokerName)
	require.False(t, o.IsSlave())
	require.Equal(t, "10.1.2.3:10921", o.BrokerAddr)
	require.True(t, strings.HasSuffix(o.ListenAddr, ":10921"))
	require.Equal(t, []string{"10.0.0.1:9876", "10.0.0.2:9876"}, o.NamesrvAddrs)
	require.False(t, o.AutoCreateTopicEnable)
	require.Equal(t, "/data/rmq", o.Store.RootDir)
	require.Equal(t, "/data/rmq/commitlog", o.Store.CommitLogDir)
	require.Equal(t, int64(67108864), o.Store.CommitLogSegmentSize)
	require.Equal(t, 300000, o.Store.CQEntriesPerFile)
	require.Equal(t, store.SyncFlush, o.Store.FlushType)
	require.Equal(t, []int{3, 5}, o.Store.DeleteWhen)
	require.Equal(t, 48*time.Hour, o.Store.FileReservedTime)
	require.Equal(t, []time.Duration{time.Second, 2 * time.Minute, 3 * time.Hour}, o.Store.DelayLevels)
	require.False(t, o.Store.StoreHost.IsValid(), "the broker derives the store host from BrokerAddr, held once")
	require.True(t, o.Store.Preallocate)
	require.True(t, o.Store.CheckCRCOnRecover)
}

// TestNamesrvOptions maps namesrv.conf.
func TestNamesrvOptions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "namesrv.conf")
	require.NoError(t, os.WriteFile(path, []byte("listenPort=9988\nkvConfigPath=/tmp/kv.json\nscanNotActiveBrokerInterval=2000\n"), 0o644))
	cfg, err := LoadNamesrv(path, nil, nil)
	require.NoError(t, err)
	no, err := cfg.Options()
	require.NoError(t, err)
	o := no.Namesrv
	require.True(t, strings.HasSuffix(o.ListenAddr, ":9988"))
	require.Equal(t, "/tmp/kv.json", o.KVConfigPath)
	require.Equal(t, 2*time.Second, o.ScanNotActiveBrokerInterval)
	require.Equal(t, 120*time.Second, o.BrokerChannelExpiredTime)
}

// TestBrokerConfigTextIsTheEffectiveConfig: mqbroker hands the broker its effective broker.conf
// (what -p prints) for GET_BROKER_CONFIG.
func TestBrokerConfigTextIsTheEffectiveConfig(t *testing.T) {
	path := writeConf(t, "brokerName = broker-conf\nlistenPort = 10977\nbrokerPermission = 4\n")
	cfg, err := LoadBroker(path, nil, nil)
	require.NoError(t, err)
	bo, err := cfg.Options()
	require.NoError(t, err)
	o := bo.Broker
	require.NotNil(t, o.ConfigText)
	text := o.ConfigText()
	props, err := ParseProperties([]byte(text))
	require.NoError(t, err)
	require.Len(t, props, len(cfg.Fields()))
	kv := map[string]string{}
	for _, p := range props {
		kv[p.Key] = p.Value
	}
	require.Equal(t, "broker-conf", kv["brokerName"])
	require.Equal(t, "10977", kv["listenPort"])
	require.Equal(t, "4", kv["brokerPermission"])
	require.Equal(t, "ASYNC_FLUSH", kv["flushDiskType"])
}
