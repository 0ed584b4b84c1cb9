package broker

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/rocketgo/rocketgo/internal/broker/assign"
	"github.com/rocketgo/rocketgo/internal/broker/pop"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// PopOptions configure POP consumption and server-side assignment (Java BrokerConfig's keys of
// the same names; docs/pop.md). Zero values take Java 5.3's defaults.
type PopOptions struct {
	ReviveQueueNum          int           // reviveQueueNum, 8
	ReviveInterval          time.Duration // reviveInterval, 1 s
	PopFromRetryProbability int           // popFromRetryProbability, 20 (%); negative takes 20
	PollingSize             int           // popPollingSize, 1024
	MaxPollingSize          int           // maxPopPollingSize, 100000
	// ServerLoadBalancerEnable is serverLoadBalancerEnable (true); NoServerLoadBalancer turns it
	// off, so that the zero value keeps Java's default.
	NoServerLoadBalancer      bool
	DefaultMessageRequestMode string // defaultMessageRequestMode, PULL
	DefaultPopShareQueueNum   int    // defaultPopShareQueueNum, -1
}

// buildPop builds the POP and assignment services; they run from Start.
func (b *Broker) buildPop() error {
	o := b.opts.Pop
	popSvc, err := pop.New(pop.Options{
		ClusterName: b.opts.ClusterName, BrokerName: b.opts.BrokerName, BrokerPermission: b.opts.BrokerPermission,
		Slave: b.opts.IsSlave(), StoreHost: b.opts.Store.StoreHost, StorePathRootDir: b.opts.Store.RootDir,
		ReviveQueueNum: o.ReviveQueueNum, ReviveInterval: o.ReviveInterval, PopFromRetryProbability: o.PopFromRetryProbability,
		PollingSize: o.PollingSize, MaxPollingSize: o.MaxPollingSize, FlushInterval: b.opts.FlushConsumerOffsetInterval,
		MaxPollingPerConnection: b.opts.Limits.MaxHeldPullsPerConnection, MaxPollTime: b.opts.Limits.MaxSuspendTimeout,
	}, pop.Deps{Store: b.store, Topics: b.topics, Groups: b.groups, Offsets: b.offsets, Subscriptions: b.consumers,
		Metrics: b.metrics}, b.lg.Named("pop"))
	if err != nil {
		return fmt.Errorf("broker: %w", err)
	}
	b.pops = popSvc
	b.routes = &topicRoutes{b: b}
	b.assign, err = assign.New(assign.Options{StorePathRootDir: b.opts.Store.RootDir,
		ServerLoadBalancerEnable: !o.NoServerLoadBalancer, DefaultMode: o.DefaultMessageRequestMode,
		DefaultPopShareQueueNum: o.DefaultPopShareQueueNum, ModeChanged: b.requestModeChanged},
		assign.Deps{Topics: b.topics, Groups: b.groups, Consumers: b.consumers, Routes: b.routes}, b.lg.Named("assign"))
	if err != nil {
		return fmt.Errorf("broker: %w", err)
	}
	return nil
}

// requestModeChanged tells a group's consumers to rebalance after its request mode changed.
func (b *Broker) requestModeChanged(_, group string) {
	if b.members != nil {
		b.members.GroupChanged(group, b.consumers.Channels(group))
	}
}

// PopOutstanding is the number of POP checkpoints not yet settled (tests).
func (b *Broker) PopOutstanding() int { return b.pops.Outstanding() }

// routeTTL is how long a topic's route from the name server is reused for assignments.
const routeTTL = 3 * time.Second

// topicRoutes answers assignment's question "which queues does the topic have in the cluster":
// the name server's route, cached for routeTTL, or this broker's own queues without a name server.
type topicRoutes struct {
	b     *Broker
	mu    sync.Mutex
	cache map[string]cachedRoute
}

type cachedRoute struct {
	queues []body.MessageQueue
	at     time.Time
}

// TopicQueues implements assign.Routes.
func (r *topicRoutes) TopicQueues(topic string) ([]body.MessageQueue, bool) {
	r.mu.Lock()
	c, ok := r.cache[topic]
	r.mu.Unlock()
	if ok && time.Since(c.at) < routeTTL {
		return append([]body.MessageQueue(nil), c.queues...), len(c.queues) > 0
	}
	queues, ok := r.fromNamesrv(topic)
	if !ok {
		queues = r.local(topic)
	}
	r.mu.Lock()
	if r.cache == nil || len(r.cache) > 10000 {
		r.cache = map[string]cachedRoute{}
	}
	r.cache[topic] = cachedRoute{queues: queues, at: time.Now()}
	r.mu.Unlock()
	return append([]body.MessageQueue(nil), queues...), len(queues) > 0
}

// local is this broker's readable queues of the topic.
func (r *topicRoutes) local(topic string) []body.MessageQueue {
	tc, ok := r.b.topics.Get(topic)
	if !ok || tc.Perm&body.PermRead == 0 {
		return nil
	}
	out := make([]body.MessageQueue, tc.ReadQueueNums)
	for i := range out {
		out[i] = body.MessageQueue{Topic: topic, BrokerName: r.b.opts.BrokerName, QueueID: int32(i)}
	}
	return out
}

// fromNamesrv asks the name servers for the topic's route, as Java's TopicRouteInfoManager does,
// and lists the readable queues of every broker in it.
func (r *topicRoutes) fromNamesrv(topic string) ([]body.MessageQueue, bool) {
	cli := r.b.nsClient
	if cli == nil {
		return nil, false
	}
	for _, addr := range r.b.opts.NamesrvAddrs {
		req := protocol.NewRequest(protocol.GetRouteinfoByTopic, nil, nil)
		protocol.GetRouteInfoRequestHeader{Topic: topic}.Encode(&req.ExtFields)
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		resp, err := cli.Invoke(ctx, addr, req)
		cancel()
		if err != nil || resp.ResponseCode() != protocol.Success {
			continue
		}
		route, err := body.DecodeTopicRouteData(resp.Body)
		if err != nil {
			continue
		}
		return routeQueues(topic, route), true
	}
	return nil, false
}

func routeQueues(topic string, route *body.TopicRouteData) []body.MessageQueue {
	var out []body.MessageQueue
	for _, qd := range route.QueueDatas {
		if qd.Perm&body.PermRead == 0 {
			continue
		}
		for i := range qd.ReadQueueNums {
			out = append(out, body.MessageQueue{Topic: topic, BrokerName: qd.BrokerName, QueueID: int32(i)})
		}
	}
	return out
}
