package mqadmin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rocketgo/rocketgo/internal/admin"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// consumeFlags are consumeMessage's options.
type consumeFlags struct {
	topic, broker, group, begin, end string
	queueID                          int
	offset, count                    int64
}

// newConsumeMessageCommand is `mqadmin consumeMessage -t T [-b brokerName [-i queueId [-o
// offset]]] [-g group] [-s begin] [-e end] [-c count]`: read up to -c messages (128) from the
// topic's queues, or from one queue, and print them, as Java's tool does (no offset is committed).
func newConsumeMessageCommand(env *adminEnv) *cobra.Command {
	var f consumeFlags
	cmd := &cobra.Command{
		Use:   "consumeMessage",
		Short: "Consume message",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			begin, end, err := f.check(cmd, env.now().UnixMilli())
			if err != nil {
				return err
			}
			c := env.client()
			defer c.Close()
			r, err := newQueueReader(cmd.Context(), c, strings.TrimSpace(f.topic), strings.TrimSpace(f.group))
			if err != nil {
				return err
			}
			if cmd.Flags().Changed("queueId") {
				mq := body.MessageQueue{Topic: strings.TrimSpace(f.topic), BrokerName: strings.TrimSpace(f.broker), QueueID: int32(f.queueID)}
				return consumeQueue(cmd.Context(), cmd.OutOrStdout(), r, mq, f.offset, f.count, begin, end)
			}
			return consumeTopic(cmd.Context(), cmd.OutOrStdout(), r, strings.TrimSpace(f.topic), f.count, begin, end)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.topic, "topic", "t", "", "Topic name")
	fl.StringVarP(&f.broker, "brokerName", "b", "", "Broker name")
	fl.IntVarP(&f.queueID, "queueId", "i", 0, "Queue Id")
	fl.Int64VarP(&f.offset, "offset", "o", 0, "Queue offset")
	fl.StringVarP(&f.group, "consumerGroup", "g", "", "Consumer group name")
	fl.StringVarP(&f.begin, "beginTimestamp", "s", "", "Begin timestamp[currentTimeMillis|yyyy-MM-dd#HH:mm:ss:SSS]")
	fl.StringVarP(&f.end, "endTimestamp", "e", "", "End timestamp[currentTimeMillis|yyyy-MM-dd#HH:mm:ss:SSS]")
	fl.Int64VarP(&f.count, "MessageNumber", "c", 128, "Number of message to be consumed")
	_ = cmd.MarkFlagRequired("topic")
	return cmd
}

// check applies Java's rules: a positive count, a queue needs its broker and an offset its
// queue, times not after now and in order. It returns the times (0 = not given).
func (f consumeFlags) check(cmd *cobra.Command, now int64) (begin, end int64, err error) {
	fl := cmd.Flags()
	switch {
	case f.count <= 0:
		return 0, 0, errors.New("please input a positive messageNumber")
	case fl.Changed("queueId") && !fl.Changed("brokerName"):
		return 0, 0, errors.New("please set the brokerName before queueId")
	case fl.Changed("offset") && !fl.Changed("queueId"):
		return 0, 0, errors.New("please set queueId before offset")
	}
	if begin, end, err = (printFlags{begin: f.begin, end: f.end}).timeRange(); err != nil {
		return 0, 0, err
	}
	switch {
	case begin > now:
		return 0, 0, errors.New("please set the beginTimestamp before now")
	case end > now:
		return 0, 0, errors.New("please set the endTimestamp before now")
	case end > 0 && begin > end:
		return 0, 0, errors.New("please make sure that the beginTimestamp is less than or equal to the endTimestamp")
	}
	return begin, end, nil
}

// consumeTopic reads the topic's queues in order until count messages were provided.
func consumeTopic(ctx context.Context, w io.Writer, r *queueReader, topic string, count, begin, end int64) error {
	left := count
	for _, mq := range r.queues(topic) {
		if left <= 0 {
			return nil
		}
		lo, hi, err := r.timeBounds(ctx, mq, begin, end)
		if err != nil {
			return err
		}
		if hi-lo > left {
			fmt.Fprintf(w, "The older %d message of the %d queue will be provided\n", left, mq.QueueID)
			hi = lo + left
		}
		left -= hi - lo
		if err := consumeRange(ctx, w, r, mq, lo, hi); err != nil {
			return err
		}
	}
	return nil
}

// consumeQueue reads one queue from offset (or its start) until count messages were provided.
func consumeQueue(ctx context.Context, w io.Writer, r *queueReader, mq body.MessageQueue, offset, count, begin, end int64) error {
	lo, hi, err := r.timeBounds(ctx, mq, begin, end)
	if err != nil {
		return err
	}
	if offset > hi {
		fmt.Fprintf(w, "%s no matched msg, offset=%d\n", mqString(mq), offset)
		return nil
	}
	lo = max(lo, offset)
	if hi-lo > count {
		fmt.Fprintf(w, "The oldler %d message will be provided\n", count)
		hi = lo + count
	}
	return consumeRange(ctx, w, r, mq, lo, hi)
}

// consumeRange pulls [lo, hi) and prints each batch after "Consume ok"; a queue that ends first
// is reported as Java reports it.
func consumeRange(ctx context.Context, w io.Writer, r *queueReader, mq body.MessageQueue, lo, hi int64) error {
	decode, _ := charsetDecoder("UTF-8")
	for offset := lo; offset < hi; {
		res, err := r.pull(ctx, mq, "*", offset, int(min(hi-offset, pullBatch)))
		if err != nil {
			return err
		}
		offset = res.NextBeginOffset
		switch res.Status {
		case admin.Found:
			fmt.Fprintln(w, "Consume ok")
			printMessages(w, res.Msgs, mq.BrokerName, decode, true)
		case admin.NoMatchedMsg:
			fmt.Fprintf(w, "%s no matched msg. status=%s, offset=%d\n", mqString(mq), res.Status, offset)
		default:
			fmt.Fprintf(w, "%s print msg finished. status=%s, offset=%d\n", mqString(mq), res.Status, offset)
			return nil
		}
	}
	return nil
}
