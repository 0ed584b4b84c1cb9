package queueoffset

import (
	"math"
	"strings"

	"github.com/rocketgo/rocketgo/internal/broker/client"
	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/names"
)

// AdminOffsets is what the admin operations do with committed offsets.
type AdminOffsets interface {
	TopicsOfGroup(group string) []string
	QueryAll(group, topic string) map[int32]int64
	CloneOffset(srcGroup, destGroup, topic string)
	MinOffsetInAllGroups(topic string, skipGroups map[string]bool) map[int32]int64
}

// QueueStore reads ConsumeQueues.
type QueueStore interface {
	MinOffsetInQueue(topic string, queueID int32) int64
	MaxOffsetInQueue(topic string, queueID int32) int64
	QueueEntry(topic string, queueID int32, offset int64) (store.QueueEntry, bool)
}

// Topics looks topics up.
type Topics interface {
	Get(topic string) (body.TopicConfig, bool)
}

// Consumers knows the online groups' subscriptions.
type Consumers interface {
	HasGroup(group string) bool
	Subscription(group, topic string) (*client.Subscription, bool)
}

// Admin serves the offset operations of admin tools (mqadmin cloneGroupOffset, queryCq, the
// correction offsets of a topic).
type Admin struct {
	Offsets   AdminOffsets
	Store     QueueStore
	Topics    Topics
	Consumers Consumers
}

// CloneRequest copies SrcGroup's offsets to DestGroup: of Topic, or of every topic SrcGroup has
// offsets on. Unless Offline, a topic an online SrcGroup does not subscribe to is skipped.
type CloneRequest struct {
	SrcGroup, DestGroup, Topic string
	Offline                    bool
}

// Clone copies a group's committed offsets to another group (Java cloneGroupOffset); topics that
// do not exist are skipped; a name names.Topic or names.Group refuses is an error.
func (a *Admin) Clone(r CloneRequest) error {
	topics := []string{r.Topic}
	if strings.TrimSpace(r.Topic) == "" {
		topics = a.Offsets.TopicsOfGroup(r.SrcGroup)
	}
	if err := validNames(topics, []string{r.SrcGroup, r.DestGroup}); err != nil {
		return err
	}
	for _, t := range topics {
		if _, ok := a.Topics.Get(t); !ok {
			continue
		}
		if !r.Offline && a.Consumers.HasGroup(r.SrcGroup) {
			if _, ok := a.Consumers.Subscription(r.SrcGroup, t); !ok {
				continue
			}
		}
		a.Offsets.CloneOffset(r.SrcGroup, r.DestGroup, t)
	}
	return nil
}

// CorrectionOffsets is, per queue of topic, the lowest offset committed by a group other than
// filterGroups (comma-separated), or math.MaxInt64 where compareGroup is behind it (Java
// queryCorrectionOffset). Unlike Java's, asking leaves the skipped groups' offsets in place.
func (a *Admin) CorrectionOffsets(topic, filterGroups, compareGroup string) (map[int32]int64, error) {
	if err := validNames([]string{topic}, []string{compareGroup}); err != nil {
		return nil, err
	}
	skip := map[string]bool{}
	for _, g := range strings.Split(filterGroups, ",") {
		if g = strings.TrimSpace(g); g != "" {
			skip[g] = true
		}
	}
	out := a.Offsets.MinOffsetInAllGroups(topic, skip)
	for q, off := range a.Offsets.QueryAll(compareGroup, topic) {
		if low, ok := out[q]; ok && low > off {
			out[q] = math.MaxInt64
		}
	}
	return out, nil
}

// QueueQuery reads Count entries of a ConsumeQueue from Index; with Group, the group's
// subscription to the topic says which of them it takes.
type QueueQuery struct {
	Topic   string
	QueueID int32
	Index   int64
	Count   int32
	Group   string
}

// ConsumeQueue answers QUERY_CONSUME_QUEUE: the entries asked for (fewer at the queue's end), the
// queue's bounds, and the group's subscription, or why there is none.
func (a *Admin) ConsumeQueue(q QueueQuery) (body.QueryConsumeQueueResponseBody, error) {
	if err := validNames([]string{q.Topic}, optional(q.Group)); err != nil {
		return body.QueryConsumeQueueResponseBody{}, err
	}
	tc, ok := a.Topics.Get(q.Topic)
	if !ok || q.QueueID < 0 || int(q.QueueID) >= max(tc.ReadQueueNums, tc.WriteQueueNums) {
		return body.QueryConsumeQueueResponseBody{}, outcome.Errorf(outcome.SystemError, "%d@%s is not exist!", q.QueueID, q.Topic)
	}
	res := body.QueryConsumeQueueResponseBody{QueueData: []body.ConsumeQueueData{},
		MinQueueIndex: a.Store.MinOffsetInQueue(q.Topic, q.QueueID), MaxQueueIndex: a.Store.MaxOffsetInQueue(q.Topic, q.QueueID)}
	if q.Index < res.MinQueueIndex || q.Index >= res.MaxQueueIndex {
		return res, outcome.Errorf(outcome.SystemError, "Index %d of %d@%s is not exist!", q.Index, q.QueueID, q.Topic)
	}
	sub := a.subscription(&res, q)
	for off := q.Index; off < res.MaxQueueIndex && off-q.Index < int64(q.Count); off++ {
		e, ok := a.Store.QueueEntry(q.Topic, q.QueueID, off)
		if !ok {
			break
		}
		d := body.ConsumeQueueData{PhysicOffset: e.Offset, PhysicSize: e.Size, TagsCode: e.TagsCode}
		if sub != nil {
			d.Eval = matches(sub, e.TagsCode)
		}
		res.QueueData = append(res.QueueData, d)
	}
	return res, nil
}

// subscription is the group's subscription to the topic, recorded in res.
func (a *Admin) subscription(res *body.QueryConsumeQueueResponseBody, q QueueQuery) *client.Subscription {
	if q.Group == "" {
		return nil
	}
	sub, ok := a.Consumers.Subscription(q.Group, q.Topic)
	if !ok {
		res.FilterData = q.Group + "@" + q.Topic + " is not online!"
		return nil
	}
	d := body.SubscriptionData{Topic: sub.Topic, SubString: sub.SubString, ExpressionType: sub.ExpressionType,
		SubVersion: body.Int64(sub.SubVersion), TagsSet: sub.Tags}
	for c := range sub.Codes {
		d.CodeSet = append(d.CodeSet, int32(c))
	}
	res.SubscriptionData = &d
	return sub
}

// matches reports whether a tag subscription takes an entry; SQL92 is judged on the message
// itself, so by the queue entry every message may match.
func matches(sub *client.Subscription, tagsCode int64) bool {
	if sub.Filter != nil || sub.MatchAll() {
		return true
	}
	_, ok := sub.Codes[tagsCode]
	return ok
}

// validNames refuses a topic or group name that names.Topic or names.Group rejects.
func validNames(topics, groups []string) error {
	for _, t := range topics {
		if err := names.Topic(t); err != nil {
			return outcome.Errorf(outcome.SystemError, "%v", err)
		}
	}
	for _, g := range groups {
		if err := names.Group(g); err != nil {
			return outcome.Errorf(outcome.SystemError, "%v", err)
		}
	}
	return nil
}

// optional is name as a list of one, or none when it is empty.
func optional(name string) []string {
	if name == "" {
		return nil
	}
	return []string{name}
}
