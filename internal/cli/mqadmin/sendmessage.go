package mqadmin

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rocketgo/rocketgo/internal/admin"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// newSendMessageCommand is `mqadmin sendMessage -t T -p body [-k keys] [-c tags] [-b brokerName
// -i queueId] [-m true]`: one message sent as Java's producer sends it (a producer group named
// by the time, a new UNIQ_KEY), to the queue given or one the route offers; -m true also writes
// its message trace. Prints where it went and its id.
func newSendMessageCommand(env *adminEnv) *cobra.Command {
	var topic, text, keys, tags, broker, trace string
	var queueID int
	cmd := &cobra.Command{
		Use:   "sendMessage",
		Short: "Send a message",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var target *body.MessageQueue
			if cmd.Flags().Changed("qid") {
				if broker == "" {
					return errors.New("broker name must be set if the queue is chosen")
				}
				target = &body.MessageQueue{Topic: strings.TrimSpace(topic), BrokerName: strings.TrimSpace(broker), QueueID: int32(queueID)}
			}
			c := env.client()
			defer c.Close()
			p := c.NewProducer(strconv.FormatInt(env.now().UnixMilli(), 10))
			m := admin.OutMessage{Topic: strings.TrimSpace(topic), Tags: strings.TrimSpace(tags), Keys: strings.TrimSpace(keys),
				Body: []byte(strings.TrimSpace(text))}
			start := time.Now()
			r, err := p.Send(cmd.Context(), m, target)
			if err != nil {
				return err
			}
			if parseJavaBool(trace) {
				if err := p.SendTrace(cmd.Context(), m, r, time.Since(start)); err != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "warning: the message trace was not written: %v\n", err)
				}
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "%-32s  %-4s  %-20s    %s\n", "#Broker Name", "#QID", "#Send Result", "#MsgId")
			fmt.Fprintf(w, "%-32s  %-4d  %-20s    %s\n", r.Queue.BrokerName, r.Queue.QueueID, r.Status, r.MsgID)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&topic, "topic", "t", "", "Topic name")
	fl.StringVarP(&text, "body", "p", "", "UTF-8 string format of the message body")
	fl.StringVarP(&keys, "key", "k", "", "Message keys")
	fl.StringVarP(&tags, "tags", "c", "", "Message tags")
	fl.StringVarP(&broker, "broker", "b", "", "Send message to target broker")
	fl.IntVarP(&queueID, "qid", "i", 0, "Send message to target queue")
	fl.StringVarP(&trace, "msgTraceEnable", "m", "false", "Message Trace Enable, Default: false")
	_ = cmd.MarkFlagRequired("topic")
	_ = cmd.MarkFlagRequired("body")
	return cmd
}
