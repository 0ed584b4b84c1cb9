package mqadmin

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rocketgo/rocketgo/internal/admin"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// newStatsAllCommand is `mqadmin statsAll [-a] [-t topic]`: for every topic but retry and DLQ
// topics, what its masters stored per second and over the day and, per consumer group, its lag
// and what it pulled (VIEW_BROKER_STATS_DATA, QUERY_TOPIC_CONSUME_BY_WHO, GET_CONSUME_STATS), in
// 4.9's columns. A topic whose figures cannot be read is left out, as in Java.
func newStatsAllCommand(env *adminEnv) *cobra.Command {
	var (
		active bool
		only   string
	)
	cmd := &cobra.Command{
		Use:   "statsAll",
		Short: "Topic and Consumer tps stats",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c := env.client()
			defer c.Close()
			ctx, w := cmd.Context(), cmd.OutOrStdout()
			topics, err := c.TopicList(ctx)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "%-64s  %-64s %12s %11s %11s %14s %14s\n",
				"#Topic", "#Consumer Group", "#Accumulation", "#InTPS", "#OutTPS", "#InMsg24Hour", "#OutMsg24Hour")
			for _, topic := range topics {
				if statsAllSkips(topic, only) {
					continue
				}
				if tt, err := c.ExamineTopicThroughput(ctx, topic); err == nil {
					printTopicThroughput(w, tt, active)
				}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.BoolVarP(&active, "activeTopic", "a", false, "print active topic only")
	fl.StringVarP(&only, "topic", "t", "", "print select topic only")
	return cmd
}

// statsAllSkips says whether statsAll leaves a topic out: retry and DLQ topics, and every topic
// but the one -t selects.
func statsAllSkips(topic, only string) bool {
	if strings.HasPrefix(topic, systopic.RetryPrefix) || strings.HasPrefix(topic, systopic.DLQPrefix) {
		return true
	}
	return only != "" && topic != only
}

// printTopicThroughput writes a topic's lines: one per consumer group, or one NO_CONSUMER line.
// With active only topics that stored or delivered something over the day are written.
func printTopicThroughput(w io.Writer, tt *admin.TopicThroughput, active bool) {
	topic := atMost(tt.Topic, 64)
	if len(tt.GroupStats) == 0 {
		if !active || tt.InMsg24h > 0 {
			fmt.Fprintf(w, "%-64s  %-64s %12d %11.2f %11s %14d %14s\n", topic, "", 0, tt.InTPS, "", tt.InMsg24h, "NO_CONSUMER")
		}
		return
	}
	for _, g := range tt.GroupStats {
		if !active || tt.InMsg24h > 0 || g.OutMsg24h > 0 {
			fmt.Fprintf(w, "%-64s  %-64s %12d %11.2f %11.2f %14d %14d\n", topic, atMost(g.Group, 64),
				g.Accumulation, tt.InTPS, g.OutTPS, tt.InMsg24h, g.OutMsg24h)
		}
	}
}
