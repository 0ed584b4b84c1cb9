package mqadmin

import (
	"fmt"
	"io"
	"math"

	"github.com/spf13/cobra"

	"github.com/rocketgo/rocketgo/internal/admin"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// newQueryMsgByKeyCommand is `mqadmin queryMsgByKey -t T -k KEY [-b begin -e end]`: the topic's
// messages carrying KEY among their keys, from every broker of its route (QUERY_MESSAGE). Times
// are ms since the epoch; by default all time.
func newQueryMsgByKeyCommand(env *adminEnv) *cobra.Command {
	var (
		topic, key string
		begin, end int64
		maxNum     int
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
	fl.IntVar(&maxNum, "maxNum", admin.DefaultKeyQueryMax, "most messages asked of each broker")
	_ = cmd.MarkFlagRequired("topic")
	_ = cmd.MarkFlagRequired("msgKey")
	return cmd
}

// printMessageList writes one line per message: its id (UNIQ_KEY, else the offset id, as Java's
// client reports msgId), offset id, queue, queue offset and store time.
func printMessageList(w io.Writer, msgs []*message.MessageExt) {
	const format = "%-32s  %-32s  %4s  %20s  %s\n"
	fmt.Fprintf(w, format, "#Message ID", "#Offset Message ID", "#QID", "#Offset", "#Store Time")
	for _, m := range msgs {
		id := m.UniqKey()
		if id == "" {
			id = m.OffsetMsgID()
		}
		fmt.Fprintf(w, "%-32s  %-32s  %4d  %20d  %s\n", id, m.OffsetMsgID(), m.QueueID, m.QueueOffset, humanTime(m.StoreTimestamp))
	}
}
