package mqbench

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// defaultTopic is the topic new topics inherit from (Java's TBW102), and
// defaultTopicQueueNums the queue count a client asks for, as Java's
// producer defaults.
const (
	defaultTopic          = "TBW102"
	defaultTopicQueueNums = 4
)

// errTopicNotExist is the name server's TOPIC_NOT_EXIST.
var errTopicNotExist = errors.New("topic not in the name server")

// queueRef is one queue of the topic on one broker master.
type queueRef struct {
	BrokerName string
	Addr       string
	QueueID    int32
	qid        string // QueueID as text, for headers
}

func (q queueRef) String() string { return q.BrokerName + "/" + strconv.Itoa(int(q.QueueID)) }

func newQueueRef(brokerName, addr string, id int) queueRef {
	return queueRef{BrokerName: brokerName, Addr: addr, QueueID: int32(id), qid: strconv.Itoa(id)}
}

// admin makes the name server and admin calls of a run over its own client.
type admin struct {
	cli       *remoting.Client // its RequestTimeout bounds each call without a ctx deadline
	namesrv   []string
	serialize protocol.SerializeType
}

// invoke sends req to addr and returns the response, whatever its code.
func (a *admin) invoke(ctx context.Context, addr string, req *protocol.Command) (*protocol.Command, error) {
	req.SerializeType = a.serialize
	resp, err := a.cli.Invoke(ctx, addr, req)
	if err != nil {
		return nil, fmt.Errorf("mqbench: %s to %s: %w", req.RequestCode(), addr, err)
	}
	return resp, nil
}

// invokeNamesrv tries each name server in turn until one answers.
func (a *admin) invokeNamesrv(ctx context.Context, mk func() *protocol.Command) (*protocol.Command, error) {
	var errs []error
	for _, ns := range a.namesrv {
		resp, err := a.invoke(ctx, ns, mk())
		if err == nil {
			return resp, nil
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}

// route asks the name servers for topic's route.
func (a *admin) route(ctx context.Context, topic string) (*body.TopicRouteData, error) {
	resp, err := a.invokeNamesrv(ctx, func() *protocol.Command {
		return protocol.NewRequest(protocol.GetRouteinfoByTopic, map[string]string{"topic": topic}, nil)
	})
	if err != nil {
		return nil, err
	}
	switch resp.ResponseCode() {
	case protocol.Success:
	case protocol.TopicNotExist:
		return nil, fmt.Errorf("mqbench: route of %s: %w (%s)", topic, errTopicNotExist, resp.Remark)
	default:
		return nil, fmt.Errorf("mqbench: route of %s: %s %q", topic, resp.ResponseCode(), resp.Remark)
	}
	r, err := body.DecodeTopicRouteData(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("mqbench: route of %s: %w", topic, err)
	}
	return r, nil
}

// produceRoute returns the queues to send to: the topic's write queues on
// every writable master or, when the name server does not know the topic,
// TBW102's (capped at 4 queues per broker, as Java clients do) so that the
// broker creates the topic on the first send.
func (a *admin) produceRoute(ctx context.Context, topic string) ([]queueRef, bool, error) {
	r, err := a.route(ctx, topic)
	if err == nil {
		qs := writeQueues(r, 0)
		if len(qs) == 0 {
			return nil, false, fmt.Errorf("mqbench: topic %s has no writable queue on a master", topic)
		}
		return qs, false, nil
	}
	if !errors.Is(err, errTopicNotExist) {
		return nil, false, err
	}
	r, err2 := a.route(ctx, defaultTopic)
	if err2 != nil {
		return nil, false, fmt.Errorf("%w; falling back to %s: %w", err, defaultTopic, err2)
	}
	qs := writeQueues(r, defaultTopicQueueNums)
	if len(qs) == 0 {
		return nil, false, fmt.Errorf("mqbench: neither %s nor %s has writable queues", topic, defaultTopic)
	}
	return qs, true, nil
}

// writeQueues lists the write queues of every writable master, queue 0 of
// each broker first, then queue 1, and so on, so that round-robin spreads
// consecutive sends over the brokers. limit > 0 caps queues per broker.
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

// masters lists the master addresses of cluster (every cluster when
// empty), by broker name.
func (a *admin) masters(ctx context.Context, cluster string) (map[string]string, error) {
	resp, err := a.invokeNamesrv(ctx, func() *protocol.Command {
		return protocol.NewRequest(protocol.GetBrokerClusterInfo, nil, nil)
	})
	if err != nil {
		return nil, err
	}
	if resp.ResponseCode() != protocol.Success {
		return nil, fmt.Errorf("mqbench: cluster info: %s %q", resp.ResponseCode(), resp.Remark)
	}
	ci, err := body.DecodeClusterInfo(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("mqbench: cluster info: %w", err)
	}
	names := map[string]bool{}
	for c, bs := range ci.ClusterAddrTable {
		if cluster == "" || c == cluster {
			for _, b := range bs {
				names[b] = true
			}
		}
	}
	out := map[string]string{}
	for name, bd := range ci.BrokerAddrTable {
		if addr, ok := bd.BrokerAddrs[body.MasterID]; ok && names[name] {
			out[name] = addr
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("mqbench: no master in cluster %q", cluster)
	}
	return out, nil
}

// createTopic sends UPDATE_AND_CREATE_TOPIC to every master of cluster and
// returns the queues it created.
func (a *admin) createTopic(ctx context.Context, topic, cluster string, queues int) ([]queueRef, error) {
	ms, err := a.masters(ctx, cluster)
	if err != nil {
		return nil, err
	}
	r := &body.TopicRouteData{}
	for name, addr := range ms {
		n := strconv.Itoa(queues)
		req := protocol.NewRequest(protocol.UpdateAndCreateTopic, map[string]string{
			"topic": topic, "defaultTopic": defaultTopic, "readQueueNums": n, "writeQueueNums": n,
			"perm": strconv.Itoa(body.PermRead | body.PermWrite), "topicFilterType": body.SingleTag,
			"topicSysFlag": "0", "order": "false",
		}, nil)
		resp, err := a.invoke(ctx, addr, req)
		if err != nil {
			return nil, err
		}
		if resp.ResponseCode() != protocol.Success {
			return nil, fmt.Errorf("mqbench: create topic %s on %s (%s): %s %q",
				topic, name, addr, resp.ResponseCode(), resp.Remark)
		}
		r.BrokerDatas = append(r.BrokerDatas, body.BrokerData{BrokerName: name, BrokerAddrs: body.BrokerAddrs{0: addr}})
		r.QueueDatas = append(r.QueueDatas, body.QueueData{BrokerName: name, ReadQueueNums: queues,
			WriteQueueNums: queues, Perm: body.PermRead | body.PermWrite})
	}
	return writeQueues(r, 0), nil
}

// maxOffset asks q's broker for the queue's max offset (its entry count).
func (a *admin) maxOffset(ctx context.Context, topic string, q queueRef) (int64, error) {
	req := protocol.NewRequest(protocol.GetMaxOffset, map[string]string{"topic": topic, "queueId": q.qid}, nil)
	return a.offsetCall(ctx, q, req)
}

// committedOffset asks for group's committed offset of q; -1 when none.
func (a *admin) committedOffset(ctx context.Context, topic, group string, q queueRef) (int64, error) {
	req := protocol.NewRequest(protocol.QueryConsumerOffset, map[string]string{
		"consumerGroup": group, "topic": topic, "queueId": q.qid, "setZeroIfNotFound": "false"}, nil)
	resp, err := a.invoke(ctx, q.Addr, req)
	if err != nil {
		return 0, err
	}
	if resp.ResponseCode() == protocol.QueryNotFound {
		return -1, nil
	}
	return offsetOf(resp, q)
}

// commitOffset stores group's offset of q (UPDATE_CONSUMER_OFFSET).
func (a *admin) commitOffset(ctx context.Context, topic, group string, q queueRef, off int64) error {
	req := protocol.NewRequest(protocol.UpdateConsumerOffset, map[string]string{
		"consumerGroup": group, "topic": topic, "queueId": q.qid, "commitOffset": strconv.FormatInt(off, 10)}, nil)
	resp, err := a.invoke(ctx, q.Addr, req)
	if err != nil {
		return err
	}
	if resp.ResponseCode() != protocol.Success {
		return fmt.Errorf("mqbench: commit offset of %s: %s %q", q, resp.ResponseCode(), resp.Remark)
	}
	return nil
}

func (a *admin) offsetCall(ctx context.Context, q queueRef, req *protocol.Command) (int64, error) {
	resp, err := a.invoke(ctx, q.Addr, req)
	if err != nil {
		return 0, err
	}
	return offsetOf(resp, q)
}

func offsetOf(resp *protocol.Command, q queueRef) (int64, error) {
	if resp.ResponseCode() != protocol.Success {
		return 0, fmt.Errorf("mqbench: %s offset: %s %q", q, resp.ResponseCode(), resp.Remark)
	}
	f := protocol.Fields(resp)
	off := f.Int64("offset")
	if err := f.Err(); err != nil {
		return 0, fmt.Errorf("mqbench: %s offset: %w", q, err)
	}
	return off, nil
}
