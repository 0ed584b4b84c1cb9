package namesrv

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestKVConfigPersistence(t *testing.T) {
	path := filepath.Join(t.TempDir(), "namesrv", "kvConfig.json")
	kv, err := NewKVConfig(KVOptions{Path: path}, nil)
	require.NoError(t, err)
	_, ok := kv.Get("ns", "k")
	require.False(t, ok)
	_, ok = kv.List("ns")
	require.False(t, ok)

	require.NoError(t, kv.Put(NamespaceOrderTopicConfig, "T", "broker-a:4;broker-b:4"))
	require.NoError(t, kv.Put("ns", "k1", "v1"))
	require.NoError(t, kv.Put("ns", "k2", "v2"))
	require.NoError(t, kv.Delete("ns", "k2"))
	require.NoError(t, kv.Delete("ns", "missing"))

	reloaded, err := NewKVConfig(KVOptions{Path: path}, nil)
	require.NoError(t, err)
	v, ok := reloaded.Get(NamespaceOrderTopicConfig, "T")
	require.True(t, ok)
	require.Equal(t, "broker-a:4;broker-b:4", v)
	table, ok := reloaded.List("ns")
	require.True(t, ok)
	require.Equal(t, map[string]string{"k1": "v1"}, table)

	require.NoError(t, reloaded.Delete("ns", "k1"))
	_, ok = reloaded.List("ns")
	require.False(t, ok, "an emptied namespace disappears")
	again, err := NewKVConfig(KVOptions{Path: path}, nil)
	require.NoError(t, err)
	_, ok = again.List("ns")
	require.False(t, ok)
}

func TestKVConfigLoadsJavaFileAndBackup(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kvConfig.json")
	java := `{"configTable":{"ORDER_TOPIC_CONFIG":{"TopicOrder":"broker-a:8"}}}`
	require.NoError(t, os.WriteFile(path, []byte(java), 0o644))
	kv, err := NewKVConfig(KVOptions{Path: path}, nil)
	require.NoError(t, err)
	v, ok := kv.Get(NamespaceOrderTopicConfig, "TopicOrder")
	require.True(t, ok)
	require.Equal(t, "broker-a:8", v)

	require.NoError(t, kv.Put("ns", "k", "v"))
	require.NoError(t, os.WriteFile(path, []byte(`{"configTable":{"ns":`), 0o644))
	fromBak, err := NewKVConfig(KVOptions{Path: path}, nil)
	require.NoError(t, err)
	v, ok = fromBak.Get(NamespaceOrderTopicConfig, "TopicOrder")
	require.True(t, ok, "the backup holds the Java file")
	require.Equal(t, "broker-a:8", v)

	require.NoError(t, os.WriteFile(path+".bak", []byte("x"), 0o644))
	_, err = NewKVConfig(KVOptions{Path: path}, nil)
	require.Error(t, err)
}
