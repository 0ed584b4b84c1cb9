package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/config"
	"github.com/rocketgo/rocketgo/internal/store"
)

func writeConf(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "broker.conf")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	return path
}

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
	cfg, err := config.LoadBroker(path, map[string]string{"namesrvAddr": "10.0.0.1:9876;10.0.0.2:9876"}, zap.NewNop())
	require.NoError(t, err)
	o, err := brokerOptions(cfg)
	require.NoError(t, err)
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
	require.Equal(t, "10.1.2.3:10921", o.Store.StoreHost.String())
	require.True(t, o.Store.CheckCRCOnRecover)
}

// TestPrintConfig: -p prints the effective configuration and exits, as Apache's mqbroker -p does.
func TestPrintConfig(t *testing.T) {
	path := writeConf(t, "brokerName = broker-p\nlistenPort = 10999\n")
	cmd := NewBrokerCommand()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"-c", path, "-p", "--log-level", "error"})
	require.NoError(t, cmd.Execute())
	require.Contains(t, out.String(), "brokerName=broker-p\n")
	require.Contains(t, out.String(), "listenPort=10999\n")
	require.Contains(t, out.String(), "flushDiskType=ASYNC_FLUSH\n")
}

// TestBadConfigStopsStartUp: a bad value is an error naming the key.
func TestBadConfigStopsStartUp(t *testing.T) {
	path := writeConf(t, "flushDiskType = SOMETIMES\n")
	cmd := NewBrokerCommand()
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	cmd.SetArgs([]string{"-c", path, "--log-level", "error"})
	err := cmd.Execute()
	require.Error(t, err)
	require.Contains(t, err.Error(), "flushDiskType")
}

// TestNamesrvOptions maps namesrv.conf.
func TestNamesrvOptions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "namesrv.conf")
	require.NoError(t, os.WriteFile(path, []byte("listenPort=9988\nkvConfigPath=/tmp/kv.json\nscanNotActiveBrokerInterval=2000\n"), 0o644))
	cfg, err := config.LoadNamesrv(path, nil, zap.NewNop())
	require.NoError(t, err)
	o, err := namesrvOptions(cfg)
	require.NoError(t, err)
	require.True(t, strings.HasSuffix(o.ListenAddr, ":9988"))
	require.Equal(t, "/tmp/kv.json", o.KVConfigPath)
	require.Equal(t, 2*time.Second, o.ScanNotActiveBrokerInterval)
	require.Equal(t, 120*time.Second, o.BrokerChannelExpiredTime)
}
