package mqadmin

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/rocketgo/rocketgo/internal/admin"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// newConsumerProgressCommand is `mqadmin consumerProgress [-g G]`: with -g, the group's offsets
// on every queue it consumes and how far behind it is (GET_CONSUME_STATS on each broker of the
// group); without, one line per consumer group the name server knows of.
func newConsumerProgressCommand(env *adminEnv) *cobra.Command {
	var group string
	cmd := &cobra.Command{
		Use:   "consumerProgress",
		Short: "Query a consumer group's progress and lag",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c := env.client()
			defer c.Close()
			ctx, w := cmd.Context(), cmd.OutOrStdout()
			if group == "" {
				sums, err := c.GroupSummaries(ctx)
				if err != nil {
					return err
				}
				printGroupSummaries(w, sums)
				return nil
			}
			cs, err := c.ExamineConsumeStats(ctx, group)
			if err != nil && (cs == nil || len(cs.OffsetTable) == 0) {
				return err
			}
			// Which member consumes which queue is best effort, as in Java: "NA" where unknown.
			owners, _ := c.QueueOwners(ctx, group)
			printConsumeStats(w, cs, owners)
			return err
		},
	}
	cmd.Flags().StringVarP(&group, "groupName", "g", "", "consumer group name")
	return cmd
}

func printConsumeStats(w io.Writer, cs *body.ConsumeStats, owners map[body.MessageQueue]string) {
	fmt.Fprintf(w, "%-32s  %-32s  %-4s  %-20s  %-20s  %-20s %-20s  %s\n",
		"#Topic", "#Broker Name", "#QID", "#Broker Offset", "#Consumer Offset", "#Client IP", "#Diff", "#LastTime")
	for _, mq := range sortedQueues(cs.OffsetTable) {
		o := cs.OffsetTable[mq]
		owner := owners[mq]
		if owner == "" {
			owner = "NA"
		}
		fmt.Fprintf(w, "%-32s  %-32s  %-4d  %-20d  %-20d  %-20s %-20d  %s\n", mq.Topic, mq.BrokerName, mq.QueueID,
			o.BrokerOffset, o.ConsumerOffset, owner, o.BrokerOffset-o.ConsumerOffset, dateTime(o.LastTimestamp))
	}
	fmt.Fprintf(w, "\nConsume TPS: %s\n", javaDouble(cs.ConsumeTps))
	fmt.Fprintf(w, "Diff Total: %d\n", admin.TotalDiff(cs))
}

func printGroupSummaries(w io.Writer, sums []admin.GroupSummary) {
	fmt.Fprintf(w, "%-32s  %-6s  %-24s %-5s  %-14s  %-7s  %s\n",
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
		fmt.Fprintf(w, "%-32s  %-6d  %-24s %-5s  %-14s  %-7d  %d\n", s.Group, s.Count, version, kind, model,
			int64(s.ConsumeTps), s.DiffTotal)
	}
}
