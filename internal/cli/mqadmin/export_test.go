package mqadmin

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/admin/admintest"
)

// readJSON decodes an exported file.
func readJSON(t *testing.T, path string) map[string]json.RawMessage {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(data, &doc))
	return doc
}

func tableKeys(t *testing.T, raw json.RawMessage) map[string]map[string]any {
	t.Helper()
	var m map[string]map[string]any
	require.NoError(t, json.Unmarshal(raw, &m))
	return m
}

// TestExportMetadata: -c merges the masters' user topics (queue counts summed) and groups into
// metadata.json, without system topics, system or predefined groups, nor retry and dead-letter
// topics unless -s; -b -t and -b -g write one table each.
func TestExportMetadata(t *testing.T) {
	cl := admintest.Start(t, "broker-a", "broker-b")
	cl.CreateTopic(t, "Exported", 2)
	mustRunAdmin(t, "updateSubGroup", "-c", admintest.ClusterName, "-g", "ExportGroup", "-n", cl.NamesrvAddr)
	admintest.Heartbeat(t, cl.Brokers[0], "10.0.0.9@1", "ExportGroup", map[string]string{"Exported": "*"})
	cl.WaitRoute(t, "%RETRY%ExportGroup")
	dir := t.TempDir()

	out := mustRunAdmin(t, "exportMetadata", "-c", admintest.ClusterName, "-f", dir, "-n", cl.NamesrvAddr)
	path := filepath.Join(dir, "metadata.json")
	require.Equal(t, []string{"export " + path + " success"}, lines(out))
	doc := readJSON(t, path)
	require.Contains(t, doc, "exportTime")
	topics := tableKeys(t, doc["topicConfigTable"])
	require.Contains(t, topics, "Exported")
	require.EqualValues(t, 4, topics["Exported"]["writeQueueNums"])
	require.EqualValues(t, 4, topics["Exported"]["readQueueNums"])
	for name := range topics {
		require.NotContains(t, []string{"TBW102", "SCHEDULE_TOPIC_XXXX", "%RETRY%ExportGroup", "DefaultCluster", "broker-a"}, name)
	}
	groups := tableKeys(t, doc["subscriptionGroupTable"])
	require.Contains(t, groups, "ExportGroup")
	require.EqualValues(t, 2, groups["ExportGroup"]["retryQueueNums"])
	for name := range groups {
		require.NotContains(t, []string{"TOOLS_CONSUMER", "SELF_TEST_C_GROUP", "CID_RMQ_SYS_TRANS"}, name)
	}

	out = mustRunAdmin(t, "exportMetadata", "-b", admintest.Addr(cl.Brokers[0]), "-t", "-s", "-f", dir)
	path = filepath.Join(dir, "topic.json")
	require.Equal(t, []string{"export " + path + " success"}, lines(out))
	doc = readJSON(t, path)
	require.NotContains(t, doc, "subscriptionGroupTable")
	topics = tableKeys(t, doc["topicConfigTable"])
	require.Contains(t, topics, "%RETRY%ExportGroup")
	require.EqualValues(t, 2, topics["Exported"]["writeQueueNums"])

	mustRunAdmin(t, "exportMetadata", "-b", admintest.Addr(cl.Brokers[1]), "-g", "-f", dir)
	doc = readJSON(t, filepath.Join(dir, "subscriptionGroup.json"))
	require.NotContains(t, doc, "topicConfigTable")
	require.Contains(t, tableKeys(t, doc["subscriptionGroupTable"]), "ExportGroup")

	env := testEnv(t)
	out, _, err := runAdminEnv(t, env, "exportMetadata", "-c", admintest.ClusterName, "-n", cl.NamesrvAddr)
	require.NoError(t, err)
	require.Equal(t, []string{"export " + filepath.Join(env.tmpDir, "export", "metadata.json") + " success"}, lines(out))
}

// TestExportConfigs: each master's main keys by broker name and the cluster's size.
func TestExportConfigs(t *testing.T) {
	cl := admintest.Start(t, "broker-a", "broker-b")
	admintest.StartSlave(t, cl.NamesrvAddr, "broker-b")
	cl.WaitBrokerIDs(t, "broker-b", 2)
	dir := t.TempDir()
	out := mustRunAdmin(t, "exportConfigs", "-c", admintest.ClusterName, "-f", dir, "-n", cl.NamesrvAddr)
	path := filepath.Join(dir, "configs.json")
	require.Equal(t, []string{"export " + path + " success"}, lines(out))
	doc := readJSON(t, path)
	var scale map[string]int
	require.NoError(t, json.Unmarshal(doc["clusterScale"], &scale))
	require.Equal(t, map[string]int{"namesrvSize": 1, "masterBrokerSize": 2, "slaveBrokerSize": 1}, scale)
	var configs map[string]map[string]string
	require.NoError(t, json.Unmarshal(doc["brokerConfigs"], &configs))
	require.Equal(t, map[string]string{"brokerClusterName": admintest.ClusterName, "brokerId": "0", "brokerName": "broker-b",
		"maxMessageSize": "4194304", "slaveReadEnable": "false", "traceOn": "false"}, configs["broker-b"])
	require.Contains(t, configs, "broker-a")
}
