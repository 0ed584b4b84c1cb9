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
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// printFlags are printMsg's and printMsgByQueue's options.
type printFlags struct {
	topic, charset, expr, begin, end string
	lmqParent                        string // printMsg -l: the route of an LMQ's parent topic
	broker                           string // printMsgByQueue -a
	queueID                          int
	printMsg, printBody, calByTag    string // "true"/"false", as Java takes them
}

// timeRange parses -b and -e (0 when not given).
func (f printFlags) timeRange() (begin, end int64, err error) {
	if f.begin != "" {
		if begin, err = parseJavaTime(f.begin); err != nil {
			return 0, 0, err
		}
	}
	if f.end != "" {
		if end, err = parseJavaTime(f.end); err != nil {
			return 0, 0, err
		}
	}
	return begin, end, nil
}

// printRun is what printMsg and printMsgByQueue do once their flags are read.
type printRun func(cmd *cobra.Command, c *admin.Client, f printFlags, decode func([]byte) string, begin, end int64) error

// printRunE reads the charset and the time range of f, then runs run on a fresh client.
func printRunE(env *adminEnv, f *printFlags, run printRun) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, _ []string) error {
		decode, err := charsetDecoder(f.charset)
		if err != nil {
			return err
		}
		begin, end, err := f.timeRange()
		if err != nil {
			return err
		}
		c := env.client()
		defer c.Close()
		return run(cmd, c, *f, decode, begin, end)
	}
}

// newPrintMsgCommand is `mqadmin printMsg -t T [-s expr] [-b begin] [-e end] [-c charset] [-d
// printBody] [-l lmqParentTopic]`: every message of every read queue of the topic (or of the
// queues stored in that time range), pulled as Java's tool pulls them, one line each with Java's
// MessageExt text and the body.
func newPrintMsgCommand(env *adminEnv) *cobra.Command {
	var f printFlags
	cmd := &cobra.Command{
		Use:   "printMsg",
		Short: "Print Message Detail",
		Args:  cobra.NoArgs,
		RunE:  printRunE(env, &f, runPrintMsg),
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.topic, "topic", "t", "", "topic name")
	fl.StringVarP(&f.charset, "charsetName", "c", "UTF-8", "CharsetName(eg: UTF-8, ISO-8859-1)")
	fl.StringVarP(&f.expr, "subExpression", "s", "*", "Subscribe Expression(eg: TagA || TagB)")
	fl.StringVarP(&f.begin, "beginTimestamp", "b", "", "Begin timestamp[currentTimeMillis|yyyy-MM-dd#HH:mm:ss:SSS]")
	fl.StringVarP(&f.end, "endTimestamp", "e", "", "End timestamp[currentTimeMillis|yyyy-MM-dd#HH:mm:ss:SSS]")
	fl.StringVarP(&f.printBody, "printBody", "d", "true", "print body")
	fl.StringVarP(&f.lmqParent, "lmqParentTopic", "l", "", "Lmq parent topic, lmq is used to find the route.")
	_ = cmd.MarkFlagRequired("topic")
	return cmd
}

func runPrintMsg(cmd *cobra.Command, c *admin.Client, f printFlags, decode func([]byte) string, begin, end int64) error {
	ctx, w := cmd.Context(), cmd.OutOrStdout()
	topic := strings.TrimSpace(f.topic)
	routeTopic := topic
	if f.lmqParent != "" {
		routeTopic = strings.TrimSpace(f.lmqParent)
	}
	r, err := newQueueReader(ctx, c, routeTopic, "")
	if err != nil {
		return err
	}
	printBody := parseJavaBool(f.printBody)
	var errs []error
	for _, mq := range r.queues(topic) {
		lo, hi, err := r.timeBounds(ctx, mq, begin, end)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		fmt.Fprintf(w, "minOffset=%d, maxOffset=%d, %s\n", lo, hi, mqString(mq))
		if err := printQueue(ctx, w, r, mq, f.expr, lo, hi, func(msgs []*message.MessageExt) {
			printMessages(w, msgs, mq.BrokerName, decode, printBody)
		}); err != nil {
			errs = append(errs, err)
		}
		fmt.Fprintln(w, strings.Repeat("-", 56))
	}
	return errors.Join(errs...)
}

// printQueue pulls [lo, hi) of a queue and hands each batch found to found, saying, as Java's
// printMsg does, when nothing matched and when the queue ends.
func printQueue(ctx context.Context, w io.Writer, r *queueReader, mq body.MessageQueue, expr string, lo, hi int64,
	found func([]*message.MessageExt)) error {
	for offset := lo; offset < hi; {
		res, err := r.pull(ctx, mq, expr, offset, pullBatch)
		if err != nil {
			return err
		}
		offset = res.NextBeginOffset
		switch res.Status {
		case admin.Found:
			found(res.Msgs)
		case admin.NoMatchedMsg:
			fmt.Fprintf(w, "%s no matched msg. status=%s, offset=%d\n", mqString(mq), res.Status, offset)
		default:
			fmt.Fprintf(w, "%s print msg finished. status=%s, offset=%d\n", mqString(mq), res.Status, offset)
			return nil
		}
	}
	return nil
}

// printMessages writes Java's "MSGID: id MessageExt [...] BODY: text" line per message.
func printMessages(w io.Writer, msgs []*message.MessageExt, brokerName string, decode func([]byte) string, printBody bool) {
	for _, m := range msgs {
		text := "NOT PRINT BODY"
		if printBody {
			text = decode(plainBody(m))
		}
		fmt.Fprintf(w, "MSGID: %s %s BODY: %s\n", msgID(m), javaMessage(m, brokerName), text)
	}
}
