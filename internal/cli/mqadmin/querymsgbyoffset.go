package mqadmin

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rocketgo/rocketgo/internal/admin"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// newQueryMsgByOffsetCommand is `mqadmin queryMsgByOffset -t T -b brokerName -i queueId -o
// offset [-f charset]`: the message at a queue offset, pulled as Java's tool pulls it, printed as
// queryMsgById prints. Java prints nothing when there is no message there; this says why.
func newQueryMsgByOffsetCommand(env *adminEnv) *cobra.Command {
	var (
		topic, broker, charset string
		queueID                int
		offset                 int64
	)
	cmd := &cobra.Command{
		Use:   "queryMsgByOffset",
		Short: "Query Message by offset",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var decode func([]byte) string
			if cmd.Flags().Changed("bodyFormat") {
				var err error
				if decode, err = charsetDecoder(charset); err != nil {
					return err
				}
			}
			c := env.client()
			defer c.Close()
			ctx := cmd.Context()
			mq := body.MessageQueue{Topic: strings.TrimSpace(topic), BrokerName: strings.TrimSpace(broker), QueueID: int32(queueID)}
			r, err := newQueueReader(ctx, c, mq.Topic, "")
			if err != nil {
				return err
			}
			res, err := r.pull(ctx, mq, "*", offset, 1)
			if err != nil {
				return err
			}
			if res.Status != admin.Found {
				return fmt.Errorf("no message at offset %d of %s: %s (the queue holds %d to %d)", offset, mqString(mq), res.Status,
					res.MinOffset, res.MaxOffset)
			}
			return printMessageDetail(ctx, cmd.OutOrStdout(), c, env, res.Msgs[0], decode)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&topic, "topic", "t", "", "topic name")
	fl.StringVarP(&broker, "brokerName", "b", "", "Broker Name")
	fl.IntVarP(&queueID, "queueId", "i", 0, "Queue Id")
	fl.Int64VarP(&offset, "offset", "o", 0, "Queue Offset")
	fl.StringVarP(&charset, "bodyFormat", "f", "UTF-8", "print message body by the specified format")
	for _, name := range []string{"topic", "brokerName", "queueId", "offset"} {
		_ = cmd.MarkFlagRequired(name)
	}
	return cmd
}
