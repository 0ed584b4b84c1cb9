package body

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/admin"
	"github.com/stretchr/testify/require"
)

func TestTopicConfigDefaultsAndGolden(t *testing.T) {
	var tc TopicConfig
	require.NoError(t, json.Unmarshal([]byte(`{"topicName":"t","perm":7}`), &tc))
	require.Equal(t, TopicConfig{TopicName: "t", ReadQueueNums: 16, WriteQueueNums: 16, Perm: 7, TopicFilterType: SingleTag}, tc)

	got, err := Marshal(NewTopicConfig("t"))
	require.NoError(t, err)
	require.Equal(t, `{"order":false,"perm":6,"readQueueNums":16,"topicFilterType":"SINGLE_TAG","topicName":"t","topicSysFlag":0,"writeQueueNums":16}`, string(got))
}

func TestTopicConfigWrapperJavaFile(t *testing.T) {
	// topics.json as Java 4.9 writes it (fastjson pretty format).
	java := "{\n\t\"dataVersion\":{\n\t\t\"counter\":2,\n\t\t\"timestamp\":1700000000000\n\t},\n\t\"topicConfigTable\":{\n" +
		"\t\t\"TBW102\":{\n\t\t\t\"order\":false,\n\t\t\t\"perm\":7,\n\t\t\t\"readQueueNums\":8,\n\t\t\t\"topicFilterType\":\"SINGLE_TAG\",\n" +
		"\t\t\t\"topicName\":\"TBW102\",\n\t\t\t\"topicSysFlag\":0,\n\t\t\t\"writeQueueNums\":8\n\t\t}\n\t}\n}"
	w, err := DecodeTopicConfigSerializeWrapper([]byte(java))
	require.NoError(t, err)
	require.Equal(t, DataVersion{Counter: 2, Timestamp: 1700000000000}, w.DataVersion)
	require.Equal(t, TopicConfig{TopicName: "TBW102", ReadQueueNums: 8, WriteQueueNums: 8, Perm: 7, TopicFilterType: SingleTag}, w.TopicConfigTable["TBW102"])

	empty, err := Marshal(TopicConfigSerializeWrapper{})
	require.NoError(t, err)
	require.Equal(t, `{"dataVersion":{"counter":0,"timestamp":0},"topicConfigTable":{}}`, string(empty))
}

func TestDataVersion(t *testing.T) {
	now := time.UnixMilli(1700000000000)
	d := NewDataVersion(now)
	require.Equal(t, DataVersion{Timestamp: 1700000000000}, d)
	n := d.Next(now.Add(time.Second))
	require.Equal(t, DataVersion{Counter: 1, Timestamp: 1700000001000}, n)
	require.False(t, d.Equal(n))
	require.True(t, n.Equal(DataVersion{Counter: 1, Timestamp: 1700000001000}))
	require.False(t, n.Equal(DataVersion{Counter: 1, Timestamp: 1700000001000, StateVersion: 1}))
	dv, err := DecodeDataVersion([]byte(`{"counter":1,"timestamp":1700000001000}`))
	require.NoError(t, err)
	require.True(t, dv.Equal(n))
}

func TestSubscriptionGroupDefaultsAndGoAdmin(t *testing.T) {
	var c SubscriptionGroupConfig
	require.NoError(t, json.Unmarshal([]byte(`{"groupName":"g","retryMaxTimes":3}`), &c))
	want := NewSubscriptionGroupConfig("g")
	want.RetryMaxTimes = 3
	require.Equal(t, want, c)

	w := SubscriptionGroupWrapper{
		DataVersion:            DataVersion{Counter: 4, Timestamp: 1700000000000},
		SubscriptionGroupTable: map[string]SubscriptionGroupConfig{"g": NewSubscriptionGroupConfig("g")},
	}
	data, err := Marshal(w)
	require.NoError(t, err)

	// The Go admin client decodes this body with encoding/json.
	var goAdmin admin.SubscriptionGroupWrapper
	require.NoError(t, json.Unmarshal(data, &goAdmin))
	require.Equal(t, admin.DataVersion{Timestamp: 1700000000000, Counter: 4}, goAdmin.DataVersion)
	g := goAdmin.SubscriptionGroupTable["g"]
	require.Equal(t, "g", g.GroupName)
	require.True(t, g.ConsumeEnable)
	require.True(t, g.ConsumeBroadcastEnable)
	require.Equal(t, 16, g.RetryMaxTimes)
	require.Equal(t, 1, g.RetryQueueNums)
	require.Equal(t, 1, g.WhichBrokerWhenConsumeSlowly)

	back, err := DecodeSubscriptionGroupWrapper(data)
	require.NoError(t, err)
	require.Equal(t, &w, back)
}

func TestConsumerOffsetWrapperKeys(t *testing.T) {
	// Java writes queue ids unquoted.
	java := `{"offsetTable":{"T@G":{0:12,1:7},"%RETRY%G@G":{0:0}}}`
	w, err := DecodeConsumerOffsetSerializeWrapper([]byte(java))
	require.NoError(t, err)
	require.Equal(t, map[string]map[int32]int64{"T@G": {0: 12, 1: 7}, "%RETRY%G@G": {0: 0}}, w.OffsetTable)
	require.Nil(t, w.DataVersion)

	got, err := Marshal(w)
	require.NoError(t, err)
	require.Equal(t, `{"offsetTable":{"%RETRY%G@G":{"0":0},"T@G":{"0":12,"1":7}}}`, string(got))

	_, err = DecodeConsumerOffsetSerializeWrapper([]byte(`{"offsetTable":{"T@G":{x:1}}}`))
	require.Error(t, err)
}
