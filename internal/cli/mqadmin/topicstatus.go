package mqadmin

import (
	"fmt"
	"io"
	"slices"

	"github.com/spf13/cobra"

	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// newTopicStatusCommand is `mqadmin topicStatus -t T`: each queue's min and max offset and the
// store time of its last message, from every broker of the topic's route (GET_TOPIC_STATS_INFO).
func newTopicStatusCommand(env *adminEnv) *cobra.Command {
	var topic string
	cmd := &cobra.Command{
		Use:   "topicStatus",
		Short: "Show each queue's offsets of a topic",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c := env.client()
			defer c.Close()
			stats, err := c.ExamineTopicStats(cmd.Context(), topic)
			if stats != nil {
				printTopicStatus(cmd.OutOrStdout(), stats)
			}
			return err
		},
	}
	cmd.Flags().StringVarP(&topic, "topic", "t", "", "topic name")
	_ = cmd.MarkFlagRequired("topic")
	return cmd
}

func printTopicStatus(w io.Writer, stats *body.TopicStatsTable) {
	fmt.Fprintf(w, "%-32s  %-4s  %-20s  %-20s    %s\n", "#Broker Name", "#QID", "#Min Offset", "#Max Offset", "#Last Updated")
	for _, mq := range sortedQueues(stats.OffsetTable) {
		off := stats.OffsetTable[mq]
		fmt.Fprintf(w, "%-32s  %-4d  %-20d  %-20d    %s\n", mq.BrokerName, mq.QueueID, off.MinOffset, off.MaxOffset,
			humanTime(off.LastUpdateTimestamp))
	}
}

// sortedQueues returns a table's queues by topic, broker name and queue id (Java
// MessageQueue.compareTo).
func sortedQueues[V any](m map[body.MessageQueue]V) []body.MessageQueue {
	mqs := make([]body.MessageQueue, 0, len(m))
	for mq := range m {
		mqs = append(mqs, mq)
	}
	slices.SortFunc(mqs, body.MessageQueue.Compare)
	return mqs
}
