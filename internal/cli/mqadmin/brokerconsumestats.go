package mqadmin

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// newBrokerConsumeStatsCommand is `mqadmin brokerConsumeStats -b addr [-t millis] [-l diff] [-o
// true]`: every consumer group's progress on one broker (GET_BROKER_CONSUME_STATS), in 4.9's
// columns. As in Java, a queue is printed only when it has a last consume time and at least -l
// messages of lag; the total is the broker's.
func newBrokerConsumeStatsCommand(env *adminEnv) *cobra.Command {
	var (
		addr          string
		timeoutMillis int64
		level         int64
		order         string
	)
	cmd := &cobra.Command{
		Use:   "brokerConsumeStats",
		Short: "Fetch broker consume stats data",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if timeoutMillis <= 0 {
				return fmt.Errorf("-t %d: want a timeout in milliseconds above 0", timeoutMillis)
			}
			run := *env
			run.timeout = time.Duration(timeoutMillis) * time.Millisecond
			c := run.client()
			defer c.Close()
			l, err := c.BrokerConsumeStats(cmd.Context(), strings.TrimSpace(addr), strings.EqualFold(strings.TrimSpace(order), "true"))
			if err != nil {
				return err
			}
			printBrokerConsumeStats(cmd.OutOrStdout(), l, level)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&addr, "brokerAddr", "b", "", "Broker address")
	fl.Int64VarP(&timeoutMillis, "timeoutMillis", "t", 50000, "request timeout Millis")
	fl.Int64VarP(&level, "level", "l", 0, "threshold of print diff")
	fl.StringVarP(&order, "order", "o", "false", "order topic")
	_ = cmd.MarkFlagRequired("brokerAddr")
	return cmd
}

func printBrokerConsumeStats(w io.Writer, l *body.ConsumeStatsList, level int64) {
	fmt.Fprintf(w, "%-64s  %-64s  %-32s  %-4s  %-20s  %-20s  %-20s  %s\n",
		"#Topic", "#Group", "#Broker Name", "#QID", "#Broker Offset", "#Consumer Offset", "#Diff", "#LastTime")
	for _, groups := range l.ConsumeStatsList {
		for _, group := range slices.Sorted(maps.Keys(groups)) {
			for _, cs := range groups[group] {
				printGroupQueues(w, group, &cs, level)
			}
		}
	}
	fmt.Fprintf(w, "\nDiff Total: %d\n", l.TotalDiff)
}

// printGroupQueues writes a group's queues that were consumed and lag by at least level.
func printGroupQueues(w io.Writer, group string, cs *body.ConsumeStats, level int64) {
	for _, mq := range sortedQueues(cs.OffsetTable) {
		o := cs.OffsetTable[mq]
		diff := o.BrokerOffset - o.ConsumerOffset
		if diff < level || o.LastTimestamp <= 0 {
			continue
		}
		fmt.Fprintf(w, "%-64s  %-64s  %-32s  %-4d  %-20d  %-20d  %-20d  %s\n", atMost(mq.Topic, 64), group,
			atMost(mq.BrokerName, 32), mq.QueueID, o.BrokerOffset, o.ConsumerOffset, diff, dateTime(o.LastTimestamp))
	}
}
