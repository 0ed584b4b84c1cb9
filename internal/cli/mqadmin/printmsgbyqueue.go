package mqadmin

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rocketgo/rocketgo/internal/admin"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// newPrintMsgByQueueCommand is `mqadmin printMsgByQueue -t T -a brokerName -i queueId [-s expr]
// [-b begin] [-e end] [-p true] [-d true] [-f true] [-c charset]`: one queue's messages, printed
// with -p (and their bodies with -d), counted by tag with -f.
func newPrintMsgByQueueCommand(env *adminEnv) *cobra.Command {
	var f printFlags
	cmd := &cobra.Command{
		Use:   "printMsgByQueue",
		Short: "Print Message Detail by queueId",
		Args:  cobra.NoArgs,
		RunE:  printRunE(env, &f, runPrintMsgByQueue),
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.topic, "topic", "t", "", "topic name")
	fl.StringVarP(&f.broker, "brokerName", "a", "", "broker name")
	fl.IntVarP(&f.queueID, "queueId", "i", 0, "queue id")
	fl.StringVarP(&f.charset, "charsetName", "c", "UTF-8", "CharsetName(eg: UTF-8, ISO-8859-1)")
	fl.StringVarP(&f.expr, "subExpression", "s", "*", "Subscribe Expression(eg: TagA || TagB)")
	fl.StringVarP(&f.begin, "beginTimestamp", "b", "", "Begin timestamp[currentTimeMillis|yyyy-MM-dd#HH:mm:ss:SSS]")
	fl.StringVarP(&f.end, "endTimestamp", "e", "", "End timestamp[currentTimeMillis|yyyy-MM-dd#HH:mm:ss:SSS]")
	fl.StringVarP(&f.printMsg, "printMsg", "p", "false", "print msg. eg: true | false(default)")
	fl.StringVarP(&f.printBody, "printBody", "d", "false", "print body. eg: true | false(default)")
	fl.StringVarP(&f.calByTag, "calculate", "f", "false", "calculate by tag. eg: true | false(default)")
	for _, name := range []string{"topic", "brokerName", "queueId"} {
		_ = cmd.MarkFlagRequired(name)
	}
	return cmd
}

func runPrintMsgByQueue(cmd *cobra.Command, c *admin.Client, f printFlags, decode func([]byte) string, begin, end int64) error {
	ctx, w := cmd.Context(), cmd.OutOrStdout()
	topic := strings.TrimSpace(f.topic)
	mq := body.MessageQueue{Topic: topic, BrokerName: strings.TrimSpace(f.broker), QueueID: int32(f.queueID)}
	r, err := newQueueReader(ctx, c, topic, "")
	if err != nil {
		return err
	}
	lo, hi, err := r.timeBounds(ctx, mq, begin, end)
	if err != nil {
		return err
	}
	printMsg, printBody, calByTag := parseJavaBool(f.printMsg), parseJavaBool(f.printBody), parseJavaBool(f.calByTag)
	tags := map[string]int64{}
	for offset := lo; offset < hi; {
		res, err := r.pull(ctx, mq, f.expr, offset, pullBatch)
		if err != nil {
			return err
		}
		offset = res.NextBeginOffset
		if res.Status != admin.Found {
			break // Java's printMsgByQueue stops at anything but FOUND
		}
		if calByTag {
			countTags(tags, res.Msgs)
		}
		if printMsg {
			printMessages(w, res.Msgs, mq.BrokerName, decode, printBody)
		}
	}
	if calByTag {
		printTagCounts(w, tags)
	}
	return nil
}

func countTags(counts map[string]int64, msgs []*message.MessageExt) {
	for _, m := range msgs {
		if tag := m.Tags(); strings.TrimSpace(tag) != "" {
			counts[tag]++
		}
	}
}

// printTagCounts writes the tags, most frequent first.
func printTagCounts(w io.Writer, counts map[string]int64) {
	tags := slices.Collect(maps.Keys(counts))
	slices.SortFunc(tags, func(a, b string) int { return cmp.Or(cmp.Compare(counts[b], counts[a]), cmp.Compare(a, b)) })
	for _, tag := range tags {
		fmt.Fprintf(w, "Tag: %-30s Count: %d\n", tag, counts[tag])
	}
}
