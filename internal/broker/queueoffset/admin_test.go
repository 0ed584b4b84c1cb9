package queueoffset

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/client"
	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// tableOffsets is "topic@group" → queue → offset.
type tableOffsets map[string]map[int32]int64

func (t tableOffsets) TopicsOfGroup(group string) []string {
	var out []string
	for k := range t {
		if topic, g, _ := cut(k); g == group {
			out = append(out, topic)
		}
	}
	return out
}

func cut(k string) (string, string, bool) {
	for i := range k {
		if k[i] == '@' {
			return k[:i], k[i+1:], true
		}
	}
	return k, "", false
}

func (t tableOffsets) QueryAll(group, topic string) map[int32]int64 { return t[topic+"@"+group] }

func (t tableOffsets) CloneOffset(src, dest, topic string) {
	if q, ok := t[topic+"@"+src]; ok {
		cp := map[int32]int64{}
		for k, v := range q {
			cp[k] = v
		}
		t[topic+"@"+dest] = cp
	}
}

func (t tableOffsets) MinOffsetInAllGroups(topic string, skip map[string]bool) map[int32]int64 {
	out := map[int32]int64{}
	for k, qs := range t {
		tp, g, _ := cut(k)
		if tp != topic || skip[g] {
			continue
		}
		for q, off := range qs {
			if cur, ok := out[q]; !ok || off < cur {
				out[q] = off
			}
		}
	}
	return out
}

// cqStore: queue 1 of T holds entries 2..5 (offset 100*i, size 10+i, tags code of "a" or "b").
type cqStore struct{}

func (cqStore) MinOffsetInQueue(string, int32) int64 { return 2 }
func (cqStore) MaxOffsetInQueue(string, int32) int64 { return 6 }
func (cqStore) QueueEntry(topic string, q int32, off int64) (store.QueueEntry, bool) {
	if topic != "T" || q != 1 || off < 2 || off >= 6 {
		return store.QueueEntry{}, false
	}
	tag := "a"
	if off%2 == 1 {
		tag = "b"
	}
	return store.QueueEntry{Offset: 100 * off, Size: int32(10 + off), TagsCode: int64(message.JavaHash(tag))}, true
}

type adminTopics map[string]body.TopicConfig

func (a adminTopics) Get(t string) (body.TopicConfig, bool) { c, ok := a[t]; return c, ok }

type adminConsumers map[string]map[string]*client.Subscription

func (a adminConsumers) HasGroup(g string) bool { return a[g] != nil }
func (a adminConsumers) Subscription(g, t string) (*client.Subscription, bool) {
	s, ok := a[g][t]
	return s, ok
}

func newAdmin(offs tableOffsets, consumers adminConsumers) *Admin {
	tc := body.NewTopicConfig("T")
	tc.ReadQueueNums, tc.WriteQueueNums = 2, 2
	return &Admin{Offsets: offs, Store: cqStore{}, Topics: adminTopics{"T": tc, "U": body.NewTopicConfig("U")},
		Consumers: consumers}
}

func TestClone(t *testing.T) {
	offs := tableOffsets{"T@src": {0: 5, 1: 7}, "U@src": {0: 1}, "Gone@src": {0: 9}}
	a := newAdmin(offs, adminConsumers{})
	require.NoError(t, a.Clone(CloneRequest{SrcGroup: "src", DestGroup: "dst", Topic: "T"}))
	require.Equal(t, map[int32]int64{0: 5, 1: 7}, offs["T@dst"])
	require.NotContains(t, offs, "U@dst", "only the topic asked for")

	require.NoError(t, a.Clone(CloneRequest{SrcGroup: "src", DestGroup: "all"}))
	require.Contains(t, offs, "T@all")
	require.Contains(t, offs, "U@all")
	require.NotContains(t, offs, "Gone@all", "a topic that no longer exists is skipped")

	// An online source group that does not subscribe to U: U is skipped unless offline.
	a.Consumers = adminConsumers{"src": {"T": client.NewSubscription(body.SubscriptionData{Topic: "T", SubString: "*"})}}
	require.NoError(t, a.Clone(CloneRequest{SrcGroup: "src", DestGroup: "online"}))
	require.Contains(t, offs, "T@online")
	require.NotContains(t, offs, "U@online")
	require.NoError(t, a.Clone(CloneRequest{SrcGroup: "src", DestGroup: "offline", Offline: true}))
	require.Contains(t, offs, "U@offline")

	require.Error(t, a.Clone(CloneRequest{SrcGroup: "src", DestGroup: "bad group"}), "a destination names.Group refuses")
	require.Error(t, a.Clone(CloneRequest{SrcGroup: "src", DestGroup: "d", Topic: "bad/topic"}), "a topic names.Topic refuses")
	require.NotContains(t, offs, "T@bad group")
}

func TestCorrectionOffsets(t *testing.T) {
	offs := tableOffsets{"T@a": {0: 5, 1: 9}, "T@b": {0: 3, 1: 12}, "T@skip": {0: 1}, "U@c": {0: 0}}
	a := newAdmin(offs, nil)
	corr := func(topic, filter, compare string) map[int32]int64 {
		m, err := a.CorrectionOffsets(topic, filter, compare)
		require.NoError(t, err)
		return m
	}
	require.Equal(t, map[int32]int64{0: 3, 1: 9}, corr("T", "skip", "nobody"))
	require.Equal(t, map[int32]int64{0: 1, 1: 9}, corr("T", "", "nobody"))
	require.Equal(t, map[int32]int64{0: 3, 1: 9}, corr("T", "skip,  ,x", "a2"),
		"unknown compare group changes nothing")
	offs["T@cmp"] = map[int32]int64{0: 2, 1: 10}
	require.Equal(t, map[int32]int64{0: math.MaxInt64, 1: 9}, corr("T", "skip,cmp", "cmp"),
		"where the compare group is behind the lowest, MaxInt64")
	require.Contains(t, offs, "T@skip", "asking removes nothing")
	_, err := a.CorrectionOffsets("T\n", "", "cmp")
	require.Error(t, err, "a topic names.Topic refuses")
}

func TestConsumeQueue(t *testing.T) {
	sub := client.NewSubscription(body.SubscriptionData{Topic: "T", SubString: "a", ExpressionType: body.ExpressionTag})
	a := newAdmin(tableOffsets{}, adminConsumers{"G": {"T": sub}})
	res, err := a.ConsumeQueue(QueueQuery{Topic: "T", QueueID: 1, Index: 3, Count: 2})
	require.NoError(t, err)
	require.Equal(t, int64(2), res.MinQueueIndex)
	require.Equal(t, int64(6), res.MaxQueueIndex)
	hashB, hashA := int64(message.JavaHash("b")), int64(message.JavaHash("a"))
	require.Equal(t, []body.ConsumeQueueData{{PhysicOffset: 300, PhysicSize: 13, TagsCode: hashB},
		{PhysicOffset: 400, PhysicSize: 14, TagsCode: hashA}}, res.QueueData)
	require.Nil(t, res.SubscriptionData)

	res, err = a.ConsumeQueue(QueueQuery{Topic: "T", QueueID: 1, Index: 4, Count: 10, Group: "G"})
	require.NoError(t, err)
	require.Len(t, res.QueueData, 2, "fewer at the queue's end")
	require.True(t, res.QueueData[0].Eval, "G takes tag a")
	require.False(t, res.QueueData[1].Eval)
	require.Equal(t, "a", res.SubscriptionData.SubString)

	res, err = a.ConsumeQueue(QueueQuery{Topic: "T", QueueID: 1, Index: 2, Count: 1, Group: "Off"})
	require.NoError(t, err)
	require.Equal(t, "Off@T is not online!", res.FilterData)

	for _, q := range []QueueQuery{{Topic: "Nope", QueueID: 0}, {Topic: "T", QueueID: 2}, {Topic: "T", QueueID: -1}} {
		_, err = a.ConsumeQueue(q)
		k, remark := outcome.Of(err)
		require.Equal(t, outcome.SystemError, k)
		require.Contains(t, remark, "is not exist!")
	}
	_, err = a.ConsumeQueue(QueueQuery{Topic: "T", QueueID: 1, Index: 6, Count: 1})
	_, remark := outcome.Of(err)
	require.Equal(t, "Index 6 of 1@T is not exist!", remark)
}
