package mqadmin

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rocketgo/rocketgo/internal/admin"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// newConsumerProgressCommand is `mqadmin consumerProgress [-g G [-t topic] [-s true]] [-c
// cluster]`: with -g, the group's offsets on every queue it consumes and how far behind it is
// (GET_CONSUME_STATS on each broker of the group; -t, RocketMQ 5, one topic; -s true the member
// holding each queue); without, one line per consumer group the name server knows of. The columns
// are 4.9's.
func newConsumerProgressCommand(env *adminEnv) *cobra.Command {
	var group, topic, showClientIP, cluster string
	cmd := &cobra.Command{
		Use:   "consumerProgress",
		Short: "Query consumers's progress, speed",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c := env.client()
			defer c.Close()
			ctx, w := cmd.Context(), cmd.OutOrStdout()
			if group = strings.TrimSpace(group); group == "" {
				sums, err := c.GroupSummaries(ctx)
				if err != nil {
					return err
				}
				printGroupSummaries(w, sums)
				return nil
			}
			cs, err := c.ExamineTopicConsumeStats(ctx, group, strings.TrimSpace(topic))
			if err != nil && (cs == nil || len(cs.OffsetTable) == 0) {
				return err
			}
			var owners map[body.MessageQueue]string
			if strings.EqualFold(strings.TrimSpace(showClientIP), "true") {
				// Which member consumes which queue is best effort, as in Java: "N/A" where unknown.
				owners, _ = c.QueueOwners(ctx, group)
				if owners == nil {
					owners = map[body.MessageQueue]string{}
				}
			}
			printConsumeStats(w, cs, owners)
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&group, "groupName", "g", "", "consumer group name")
	fl.StringVarP(&topic, "topicName", "t", "", "topic name (RocketMQ 5)")
	fl.StringVarP(&showClientIP, "showClientIP", "s", "false", "Show Client IP per Queue (true|false)")
	fl.StringVarP(&cluster, "cluster", "c", "", "Cluster name (RocketMQ 5; accepted, the group's route is used)")
	return cmd
}

// printConsumeStats writes 4.9's table, with the Client IP column when owners is not nil.
func printConsumeStats(w io.Writer, cs *body.ConsumeStats, owners map[body.MessageQueue]string) {
	if owners != nil {
		fmt.Fprintf(w, "%-64s  %-32s  %-4s  %-20s  %-20s  %-20s %-20s  %s\n",
			"#Topic", "#Broker Name", "#QID", "#Broker Offset", "#Consumer Offset", "#Client IP", "#Diff", "#LastTime")
	} else {
		fmt.Fprintf(w, "%-64s  %-32s  %-4s  %-20s  %-20s  %-20s  %s\n",
			"#Topic", "#Broker Name", "#QID", "#Broker Offset", "#Consumer Offset", "#Diff", "#LastTime")
	}
	var diffTotal int64
	for _, mq := range sortedQueues(cs.OffsetTable) {
		o := cs.OffsetTable[mq]
		diff := o.BrokerOffset - o.ConsumerOffset
		diffTotal += diff
		last := "N/A"
		if o.LastTimestamp != 0 {
			last = dateTime(o.LastTimestamp)
		}
		topic, broker := atMost(mq.Topic, 64), atMost(mq.BrokerName, 32)
		if owners == nil {
			fmt.Fprintf(w, "%-64s  %-32s  %-4d  %-20d  %-20d  %-20d  %s\n", topic, broker, mq.QueueID,
				o.BrokerOffset, o.ConsumerOffset, diff, last)
			continue
		}
		owner := owners[mq]
		if owner == "" {
			owner = "N/A"
		}
		fmt.Fprintf(w, "%-64s  %-32s  %-4d  %-20d  %-20d  %-20s %-20d  %s\n", topic, broker, mq.QueueID,
			o.BrokerOffset, o.ConsumerOffset, owner, diff, last)
	}
	fmt.Fprintf(w, "\nConsume TPS: %.2f\n", cs.ConsumeTps)
	fmt.Fprintf(w, "Diff Total: %d\n", diffTotal)
}

// printGroupSummaries writes 4.9's table of every group.
func printGroupSummaries(w io.Writer, sums []admin.GroupSummary) {
	fmt.Fprintf(w, "%-64s  %-6s  %-24s %-5s  %-14s  %-7s  %s\n",
		"#Group", "#Count", "#Version", "#Type", "#Model", "#TPS", "#Diff Total")
	for _, s := range sums {
		version, kind, model := "OFFLINE", "", ""
		if s.Count > 0 {
			version, kind = admin.VersionDesc(s.Version), "PUSH"
			if s.ConsumeType == body.ConsumeActively {
				kind = "PULL"
			} else {
				model = s.MessageModel
			}
		}
		fmt.Fprintf(w, "%-64s  %-6d  %-24s %-5s  %-14s  %-7d  %d\n", atMost(s.Group, 64), s.Count, version, kind, model,
			int64(s.ConsumeTps), s.DiffTotal)
	}
}
