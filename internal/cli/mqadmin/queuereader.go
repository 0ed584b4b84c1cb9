package mqadmin

import (
	"context"

	"github.com/rocketgo/rocketgo/internal/admin"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// pullBatch is how many messages the pull-based commands ask for at a time (Java's tools pull 32).
const pullBatch = 32

// queueReader reads the queues of a topic through its route, as Java's DefaultMQPullConsumer
// does for the admin tools: queue bounds, offsets by time and pulls from each queue's broker.
type queueReader struct {
	c     *admin.Client
	route *body.TopicRouteData
	group string // "" pulls as TOOLS_CONSUMER
}

// newQueueReader finds the route of routeTopic (the topic itself, or an LMQ's parent topic).
func newQueueReader(ctx context.Context, c *admin.Client, routeTopic, group string) (*queueReader, error) {
	route, err := c.TopicRoute(ctx, routeTopic)
	if err != nil {
		return nil, err
	}
	return &queueReader{c: c, route: route, group: group}, nil
}

// queues are the topic's read queues, in order; topic names them (an LMQ's own name).
func (r *queueReader) queues(topic string) []body.MessageQueue {
	return admin.ReadQueues(r.route, topic)
}

// bounds returns a queue's min and max offsets.
func (r *queueReader) bounds(ctx context.Context, mq body.MessageQueue) (lo, hi int64, err error) {
	addr, err := admin.ReadAddr(r.route, mq.BrokerName)
	if err != nil {
		return 0, 0, err
	}
	if lo, err = r.c.MinOffset(ctx, addr, mq); err != nil {
		return 0, 0, err
	}
	hi, err = r.c.MaxOffset(ctx, addr, mq)
	return lo, hi, err
}

// search returns a queue's offset for a store time (ms).
func (r *queueReader) search(ctx context.Context, mq body.MessageQueue, ts int64) (int64, error) {
	addr, err := admin.ReadAddr(r.route, mq.BrokerName)
	if err != nil {
		return 0, err
	}
	return r.c.SearchOffset(ctx, addr, mq, ts)
}

// pull reads up to n messages of a queue from offset.
func (r *queueReader) pull(ctx context.Context, mq body.MessageQueue, expr string, offset int64, n int) (*admin.PullResult, error) {
	addr, err := admin.ReadAddr(r.route, mq.BrokerName)
	if err != nil {
		return nil, err
	}
	return r.c.Pull(ctx, addr, r.group, mq, expr, offset, n)
}

// timeBounds is a queue's offsets to read, [lo, hi): its min and max offsets, or the offsets of
// the begin and end times when given (0 = not given).
func (r *queueReader) timeBounds(ctx context.Context, mq body.MessageQueue, begin, end int64) (lo, hi int64, err error) {
	if lo, hi, err = r.bounds(ctx, mq); err != nil {
		return 0, 0, err
	}
	if begin > 0 {
		if lo, err = r.search(ctx, mq, begin); err != nil {
			return 0, 0, err
		}
	}
	if end > 0 {
		if hi, err = r.search(ctx, mq, end); err != nil {
			return 0, 0, err
		}
	}
	return lo, hi, nil
}
