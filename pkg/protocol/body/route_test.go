package body

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func twoBrokerRoute() *TopicRouteData {
	return &TopicRouteData{
		BrokerDatas: []BrokerData{
			{Cluster: "DefaultCluster", BrokerName: "broker-a", BrokerAddrs: BrokerAddrs{0: "10.0.0.1:10911", 1: "10.0.0.2:10911"}},
			{Cluster: "DefaultCluster", BrokerName: "broker-b", BrokerAddrs: BrokerAddrs{0: "10.0.0.3:10911"}},
		},
		QueueDatas: []QueueData{
			{BrokerName: "broker-a", ReadQueueNums: 4, WriteQueueNums: 4, Perm: 6},
			{BrokerName: "broker-b", ReadQueueNums: 8, WriteQueueNums: 8, Perm: 6},
		},
	}
}

func TestTopicRouteDataGolden(t *testing.T) {
	got, err := twoBrokerRoute().Encode()
	require.NoError(t, err)
	want := `{"brokerDatas":[` +
		`{"brokerAddrs":{"0":"10.0.0.1:10911","1":"10.0.0.2:10911"},"brokerName":"broker-a","cluster":"DefaultCluster"},` +
		`{"brokerAddrs":{"0":"10.0.0.3:10911"},"brokerName":"broker-b","cluster":"DefaultCluster"}],` +
		`"filterServerTable":{},"queueDatas":[` +
		`{"brokerName":"broker-a","perm":6,"readQueueNums":4,"topicSysFlag":0,"writeQueueNums":4},` +
		`{"brokerName":"broker-b","perm":6,"readQueueNums":8,"topicSysFlag":0,"writeQueueNums":8}]}`
	require.Equal(t, want, string(got))
}

func TestTopicRouteDataEmptyCollections(t *testing.T) {
	got, err := (&TopicRouteData{BrokerDatas: []BrokerData{{BrokerName: "b", Cluster: "c"}}}).Encode()
	require.NoError(t, err)
	require.Equal(t, `{"brokerDatas":[{"brokerAddrs":{},"brokerName":"b","cluster":"c"}],"filterServerTable":{},"queueDatas":[]}`, string(got))

	got, err = (&TopicRouteData{}).Encode()
	require.NoError(t, err)
	require.Equal(t, `{"brokerDatas":[],"filterServerTable":{},"queueDatas":[]}`, string(got))
}

func TestBrokerAddrsNumericOrder(t *testing.T) {
	got, err := json.Marshal(BrokerAddrs{10: "c:3", 2: "b:2", 0: "a:1"})
	require.NoError(t, err)
	require.Equal(t, `{"0":"a:1","2":"b:2","10":"c:3"}`, string(got))
}

// goClientRoute re-implements rocketmq-client-go's TopicRouteData.decode (internal/route.go):
// queueDatas through a JSON decoder, brokerAddrs by splitting the raw text of the object.
type goClientBroker struct {
	Cluster, BrokerName string
	Addrs               map[int64]string
}

type goClientQueue struct {
	BrokerName     string `json:"brokerName"`
	ReadQueueNums  int    `json:"readQueueNums"`
	WriteQueueNums int    `json:"writeQueueNums"`
	Perm           int    `json:"perm"`
}

func goClientDecodeRoute(t *testing.T, data []byte) ([]goClientQueue, []goClientBroker) {
	t.Helper()
	var top struct {
		QueueDatas  json.RawMessage   `json:"queueDatas"`
		BrokerDatas []json.RawMessage `json:"brokerDatas"`
	}
	require.NoError(t, json.Unmarshal(data, &top))
	require.NotEmpty(t, top.QueueDatas, "the Go client fails without queueDatas")
	var queues []goClientQueue
	require.NoError(t, json.Unmarshal(top.QueueDatas, &queues))
	var brokers []goClientBroker
	for _, raw := range top.BrokerDatas {
		var bd struct {
			Cluster     string          `json:"cluster"`
			BrokerName  string          `json:"brokerName"`
			BrokerAddrs json.RawMessage `json:"brokerAddrs"`
		}
		require.NoError(t, json.Unmarshal(raw, &bd))
		addrs := string(bd.BrokerAddrs) // gjson's Result.String() of an object is its raw text
		require.GreaterOrEqual(t, len(addrs), 2, "the Go client slices addrs[1:len-1] and panics")
		b := goClientBroker{Cluster: bd.Cluster, BrokerName: bd.BrokerName, Addrs: map[int64]string{}}
		for _, s := range strings.Split(addrs[1:len(addrs)-1], ",") {
			i := strings.Index(s, ":")
			if i < 0 {
				continue
			}
			id, _ := strconv.ParseInt(strings.ReplaceAll(s[:i], `"`, ""), 10, 64)
			b.Addrs[id] = strings.ReplaceAll(s[i+1:], `"`, "")
		}
		brokers = append(brokers, b)
	}
	return queues, brokers
}

func TestTopicRouteDataSurvivesGoClientParser(t *testing.T) {
	data, err := twoBrokerRoute().Encode()
	require.NoError(t, err)
	queues, brokers := goClientDecodeRoute(t, data)
	require.Equal(t, []goClientQueue{
		{BrokerName: "broker-a", ReadQueueNums: 4, WriteQueueNums: 4, Perm: 6},
		{BrokerName: "broker-b", ReadQueueNums: 8, WriteQueueNums: 8, Perm: 6},
	}, queues)
	require.Equal(t, []goClientBroker{
		{Cluster: "DefaultCluster", BrokerName: "broker-a", Addrs: map[int64]string{0: "10.0.0.1:10911", 1: "10.0.0.2:10911"}},
		{Cluster: "DefaultCluster", BrokerName: "broker-b", Addrs: map[int64]string{0: "10.0.0.3:10911"}},
	}, brokers)

	empty, err := (&TopicRouteData{BrokerDatas: []BrokerData{{BrokerName: "b", Cluster: "c"}}}).Encode()
	require.NoError(t, err)
	queues, brokers = goClientDecodeRoute(t, empty)
	require.Empty(t, queues)
	require.Equal(t, []goClientBroker{{Cluster: "c", BrokerName: "b", Addrs: map[int64]string{}}}, brokers)
}

func TestDecodeTopicRouteDataJavaForms(t *testing.T) {
	// Plain fastjson (4.x namesrv, or 5.x for old clients): unquoted ids, old topicSynFlag spelling.
	java := `{"brokerDatas":[{"brokerAddrs":{0:"10.0.0.1:10911",1:"10.0.0.2:10911"},"brokerName":"broker-a","cluster":"DefaultCluster"}],` +
		`"filterServerTable":{},"queueDatas":[{"brokerName":"broker-a","perm":6,"readQueueNums":4,"topicSynFlag":3,"writeQueueNums":4}]}`
	r, err := DecodeTopicRouteData([]byte(java))
	require.NoError(t, err)
	require.Equal(t, BrokerAddrs{0: "10.0.0.1:10911", 1: "10.0.0.2:10911"}, r.BrokerDatas[0].BrokerAddrs)
	require.Equal(t, 3, r.QueueDatas[0].TopicSysFlag)

	// Pretty, standard JSON with whitespace.
	pretty := "{\n \"brokerDatas\" : [ { \"brokerAddrs\" : { \"0\" : \"a:1\" } , \"brokerName\":\"b\",\"cluster\":\"c\"} ],\n \"queueDatas\":[]}"
	r, err = DecodeTopicRouteData([]byte(pretty))
	require.NoError(t, err)
	require.Equal(t, BrokerAddrs{0: "a:1"}, r.BrokerDatas[0].BrokerAddrs)

	_, err = DecodeTopicRouteData([]byte(`{"brokerDatas":[{"brokerAddrs":{x:"a:1"}}]}`))
	require.Error(t, err)
}

func TestTopicRouteDataRoundTrip(t *testing.T) {
	in := twoBrokerRoute()
	in.OrderTopicConf = "broker-a:4;broker-b:8"
	data, err := in.Encode()
	require.NoError(t, err)
	out, err := DecodeTopicRouteData(data)
	require.NoError(t, err)
	in.FilterServerTable = map[string][]string{}
	require.Equal(t, in, out)
}

func TestClusterInfoGoldenAndJavaForm(t *testing.T) {
	ci := ClusterInfo{
		BrokerAddrTable: map[string]BrokerData{
			"broker-a": {Cluster: "c1", BrokerName: "broker-a", BrokerAddrs: BrokerAddrs{0: "h:1", 1: "h:2"}},
		},
		ClusterAddrTable: map[string][]string{"c1": {"broker-a"}},
	}
	got, err := Marshal(ci)
	require.NoError(t, err)
	require.Equal(t, `{"brokerAddrTable":{"broker-a":{"brokerAddrs":{"0":"h:1","1":"h:2"},"brokerName":"broker-a","cluster":"c1"}},"clusterAddrTable":{"c1":["broker-a"]}}`, string(got))

	java := `{"brokerAddrTable":{"broker-a":{"brokerAddrs":{0:"h:1",1:"h:2"},"brokerName":"broker-a","cluster":"c1"}},"clusterAddrTable":{"c1":["broker-a"]}}`
	back, err := DecodeClusterInfo([]byte(java))
	require.NoError(t, err)
	require.Equal(t, &ci, back)

	empty, err := Marshal(ClusterInfo{})
	require.NoError(t, err)
	require.Equal(t, `{"brokerAddrTable":{},"clusterAddrTable":{}}`, string(empty))
}

func TestSmallBodiesGolden(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want string
	}{
		{TopicList{}, `{"topicList":[]}`},
		{TopicList{TopicList: []string{"a", "b"}}, `{"topicList":["a","b"]}`},
		{KVTable{}, `{"table":{}}`},
		{KVTable{Table: map[string]string{"k": "<v&>"}}, `{"table":{"k":"<v&>"}}`},
		{ConsumerIDList{}, `{"consumerIdList":[]}`},
		{ConsumerIDList{ConsumerIDList: []string{"10.0.0.1@1"}}, `{"consumerIdList":["10.0.0.1@1"]}`},
		{LockBatchResponseBody{}, `{"lockOKMQSet":[]}`},
		{GroupList{}, `{"groupList":[]}`},
		{DataVersion{Counter: 3, Timestamp: 1700000000000}, `{"counter":3,"timestamp":1700000000000}`},
	} {
		got, err := Marshal(tc.v)
		require.NoError(t, err)
		require.Equal(t, tc.want, string(got))
	}
}
