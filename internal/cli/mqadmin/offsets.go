package mqadmin

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rocketgo/rocketgo/internal/admin"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// newCloneGroupOffsetCommand is `mqadmin cloneGroupOffset -s srcGroup -d destGroup -t topic [-o
// offline]`: the destination group's committed offsets of the topic become the source group's
// (UPDATE_CONSUMER_OFFSET on each broker of the topic, as Java's tool does; a group online
// overwrites them with its own at its next commit).
func newCloneGroupOffsetCommand(env *adminEnv) *cobra.Command {
	var src, dest, topic, offline string
	cmd := &cobra.Command{
		Use:   "cloneGroupOffset",
		Short: "Clone offset from other group",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			src, dest, topic = strings.TrimSpace(src), strings.TrimSpace(dest), strings.TrimSpace(topic)
			c := env.client()
			defer c.Close()
			if err := c.CloneGroupOffset(cmd.Context(), src, dest, topic); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "clone group offset success. srcGroup[%s], destGroup=[%s], topic[%s]\n", src, dest, topic)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&src, "srcGroup", "s", "", "set source consumer group")
	fl.StringVarP(&dest, "destGroup", "d", "", "set destination consumer group")
	fl.StringVarP(&topic, "topic", "t", "", "set the topic")
	fl.StringVarP(&offline, "offline", "o", "", "the group or the topic is offline (accepted, as in Java, with no effect)")
	for _, name := range []string{"srcGroup", "destGroup", "topic"} {
		_ = cmd.MarkFlagRequired(name)
	}
	return cmd
}

// newSkipAccumulatedMessageCommand is `mqadmin skipAccumulatedMessage -g group -t topic [-f
// force] [-c cluster]`: the group's offsets of the topic jump to the end of each queue
// (INVOKE_BROKER_TO_RESET_OFFSET with timestamp -1; with nobody of the group online,
// UPDATE_CONSUMER_OFFSET per queue, as Java's tool falls back).
func newSkipAccumulatedMessageCommand(env *adminEnv) *cobra.Command {
	var group, topic, force, cluster string
	cmd := &cobra.Command{
		Use:   "skipAccumulatedMessage",
		Short: "Skip all messages that are accumulated (not consumed) currently",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r := admin.ResetOffset{Topic: strings.TrimSpace(topic), Group: strings.TrimSpace(group), Timestamp: -1, Force: true}
			if cmd.Flags().Changed("force") {
				r.Force = parseJavaBool(force)
			}
			c := env.client()
			defer c.Close()
			ctx, w := cmd.Context(), cmd.OutOrStdout()
			table, err := c.ResetOffsetByTimestamp(ctx, r)
			if admin.IsCode(err, protocol.ConsumerNotOnline) {
				stats, err := c.ResetOffsetByTimestampOld(ctx, r.Topic, r.Group, r.Timestamp, r.Force)
				fmt.Fprintf(w, "%-20s  %-20s  %-20s  %-20s  %-20s  %-20s\n",
					"#brokerName", "#queueId", "#brokerOffset", "#consumerOffset", "#timestampOffset", "#rollbackOffset")
				for _, s := range stats {
					fmt.Fprintf(w, "%-20s  %-20d  %-20d  %-20d  %-20d  %-20d\n",
						atMost(s.BrokerName, 32), s.QueueID, s.BrokerOffset, s.ConsumerOffset, s.TimestampOffset, s.RollbackOffset)
				}
				return err
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "%-40s  %-40s  %-40s\n", "#brokerName", "#queueId", "#offset")
			for _, mq := range slices.SortedFunc(maps.Keys(table), body.MessageQueue.Compare) {
				fmt.Fprintf(w, "%-40s  %-40d  %-40d\n", atMost(mq.BrokerName, 32), mq.QueueID, table[mq])
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&group, "group", "g", "", "set the consumer group")
	fl.StringVarP(&topic, "topic", "t", "", "set the topic")
	fl.StringVarP(&force, "force", "f", "true", "set the force rollback by timestamp switch[true|false]")
	fl.StringVarP(&cluster, "cluster", "c", "", "Cluster name (RocketMQ 5; accepted, the topic's route is used)")
	_ = cmd.MarkFlagRequired("group")
	_ = cmd.MarkFlagRequired("topic")
	return cmd
}
