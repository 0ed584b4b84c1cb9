package mqbench

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/rocketgo/rocketgo/internal/admin"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// defaultTopicQueueNums is the queue count a producer asks for when the broker creates a topic
// from systopic.AutoCreate, as Java's producer defaults.
const defaultTopicQueueNums = 4

// queueRef is one queue of the topic on one broker master.
type queueRef struct {
	BrokerName string
	Addr       string
	QueueID    int32
}

func (q queueRef) String() string { return q.BrokerName + "/" + strconv.Itoa(int(q.QueueID)) }

// of returns q as a queue of topic, for the admin client.
func (q queueRef) of(topic string) body.MessageQueue {
	return body.MessageQueue{Topic: topic, BrokerName: q.BrokerName, QueueID: q.QueueID}
}

func newQueueRef(brokerName, addr string, id int) queueRef {
	return queueRef{BrokerName: brokerName, Addr: addr, QueueID: int32(id)}
}

// topicNotExist reports whether err is the name server's TOPIC_NOT_EXIST.
func topicNotExist(err error) bool { return admin.IsCode(err, protocol.TopicNotExist) }

// produceRoute returns the queues to send to: the topic's write queues on every writable master
// or, when the name server does not know the topic, systopic.AutoCreate's (capped at 4 queues per
// broker, as Java clients do) so that the broker creates the topic on the first send.
func produceRoute(ctx context.Context, adm *admin.Client, topic string) ([]queueRef, bool, error) {
	r, err := adm.TopicRoute(ctx, topic)
	if err == nil {
		qs := writeQueues(r, 0)
		if len(qs) == 0 {
			return nil, false, fmt.Errorf("mqbench: topic %s has no writable queue on a master", topic)
		}
		return qs, false, nil
	}
	if !topicNotExist(err) {
		return nil, false, fmt.Errorf("mqbench: route of %s: %w", topic, err)
	}
	r, err2 := adm.TopicRoute(ctx, systopic.AutoCreate)
	if err2 != nil {
		return nil, false, fmt.Errorf("mqbench: route of %s: %w; falling back to %s: %w", topic, err, systopic.AutoCreate, err2)
	}
	qs := writeQueues(r, defaultTopicQueueNums)
	if len(qs) == 0 {
		return nil, false, fmt.Errorf("mqbench: neither %s nor %s has writable queues", topic, systopic.AutoCreate)
	}
	return qs, true, nil
}

// createTopic creates topic with queues read and write queues on every master of cluster (every
// cluster when empty) and returns its write queues.
func createTopic(ctx context.Context, adm *admin.Client, topic, cluster string, queues int) ([]queueRef, error) {
	tc := body.NewTopicConfig(topic)
	tc.ReadQueueNums, tc.WriteQueueNums = queues, queues
	tc.Perm = body.PermRead | body.PermWrite
	masters, err := adm.CreateTopicOnMasters(ctx, cluster, tc)
	if err != nil {
		return nil, fmt.Errorf("mqbench: create topic %s: %w", topic, err)
	}
	r := &body.TopicRouteData{}
	for _, m := range masters {
		r.BrokerDatas = append(r.BrokerDatas, body.BrokerData{BrokerName: m.BrokerName, BrokerAddrs: body.BrokerAddrs{body.MasterID: m.Addr}})
		r.QueueDatas = append(r.QueueDatas, body.QueueData{BrokerName: m.BrokerName, ReadQueueNums: queues,
			WriteQueueNums: queues, Perm: tc.Perm})
	}
	return writeQueues(r, 0), nil
}

// writeQueues lists the write queues of every writable master, queue 0 of each broker first,
// then queue 1, and so on, so that round-robin spreads consecutive sends over the brokers.
// limit > 0 caps queues per broker.
func writeQueues(r *body.TopicRouteData, limit int) []queueRef {
	return queues(r, limit, body.PermWrite, func(q body.QueueData) int { return q.WriteQueueNums })
}

// readQueues lists the read queues of every readable master.
func readQueues(r *body.TopicRouteData) []queueRef {
	return queues(r, 0, body.PermRead, func(q body.QueueData) int { return q.ReadQueueNums })
}

func queues(r *body.TopicRouteData, limit, perm int, count func(body.QueueData) int) []queueRef {
	masters := map[string]string{}
	for _, b := range r.BrokerDatas {
		if addr, ok := b.BrokerAddrs[body.MasterID]; ok && addr != "" {
			masters[b.BrokerName] = addr
		}
	}
	qds := slices.Clone(r.QueueDatas)
	slices.SortFunc(qds, func(x, y body.QueueData) int {
		if x.BrokerName < y.BrokerName {
			return -1
		} else if x.BrokerName > y.BrokerName {
			return 1
		}
		return 0
	})
	var perBroker [][]queueRef
	for _, qd := range qds {
		addr, ok := masters[qd.BrokerName]
		if !ok || qd.Perm&perm == 0 {
			continue
		}
		n := count(qd)
		if limit > 0 {
			n = min(n, limit)
		}
		var qs []queueRef
		for i := range n {
			qs = append(qs, newQueueRef(qd.BrokerName, addr, i))
		}
		perBroker = append(perBroker, qs)
	}
	var out []queueRef
	for i := 0; ; i++ {
		added := false
		for _, qs := range perBroker {
			if i < len(qs) {
				out = append(out, qs[i])
				added = true
			}
		}
		if !added {
			return out
		}
	}
}
