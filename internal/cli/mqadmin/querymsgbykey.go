package mqadmin

import (
	"fmt"
	"io"
	"math"

	"github.com/spf13/cobra"

	"github.com/rocketgo/rocketgo/internal/admin"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// newQueryMsgByKeyCommand is `mqadmin queryMsgByKey -t T -k KEY [-b begin] [-e end] [-m max]
// [-c cluster]`: the topic's messages carrying KEY among their keys, from every broker of its
// route (QUERY_MESSAGE), in Java's columns. Times are ms since the epoch, by default all time;
// -b, -e, -m and -c are RocketMQ 5's (-c is accepted, the topic's route is used).
func newQueryMsgByKeyCommand(env *adminEnv) *cobra.Command {
	var (
		topic, key string
		begin, end int64
		maxNum     int
		cluster    string
	)
	cmd := &cobra.Command{
		Use:   "queryMsgByKey",
		Short: "List a topic's messages carrying a key",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c := env.client()
			defer c.Close()
			msgs, err := c.QueryMessageByKey(cmd.Context(), topic, key, maxNum, begin, end)
			if len(msgs) > 0 {
				printMessageList(cmd.OutOrStdout(), msgs)
			}
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&topic, "topic", "t", "", "topic name")
	fl.StringVarP(&key, "msgKey", "k", "", "message key")
	fl.Int64VarP(&begin, "beginTimestamp", "b", 0, "earliest store time, ms since the epoch")
	fl.Int64VarP(&end, "endTimestamp", "e", math.MaxInt64, "latest store time, ms since the epoch")
	fl.IntVarP(&maxNum, "maxNum", "m", admin.DefaultKeyQueryMax, "The maximum number of messages returned by the query")
	fl.StringVarP(&cluster, "cluster", "c", "", "Cluster name (accepted; the topic's route is used)")
	_ = cmd.MarkFlagRequired("topic")
	_ = cmd.MarkFlagRequired("msgKey")
	return cmd
}

// printMessageList writes Java's table: one line per message with its id (UNIQ_KEY, else the
// offset id, as Java's client reports msgId), queue and queue offset.
func printMessageList(w io.Writer, msgs []*message.MessageExt) {
	fmt.Fprintf(w, "%-50s %4s %40s\n", "#Message ID", "#QID", "#Offset")
	for _, m := range msgs {
		id := m.UniqKey()
		if id == "" {
			id = m.OffsetMsgID()
		}
		fmt.Fprintf(w, "%-50s %4d %40d\n", id, m.QueueID, m.QueueOffset)
	}
}
