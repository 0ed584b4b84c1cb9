package mqadmin

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rocketgo/rocketgo/internal/admin"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// resetTimeLayout is Java's UtilAll.YYYY_MM_DD_HH_MM_SS_SSS, "yyyy-MM-dd#HH:mm:ss:SSS", up to the
// milliseconds (Go's layouts only know fractions after '.' or ',').
const resetTimeLayout = "2006-01-02#15:04:05"

// newResetOffsetByTimeCommand is `mqadmin resetOffsetByTime -g G -t T -s time [-f true] [-c]`:
// move a consumer group's offsets of a topic to a point in time without restarting its consumers
// (INVOKE_BROKER_TO_RESET_OFFSET on each broker of the topic; the brokers tell the group's online
// members with RESET_CONSUMER_CLIENT_OFFSET). -s is "now", milliseconds since the epoch, or
// yyyy-MM-dd#HH:mm:ss:SSS in local time. -f false only moves offsets back (default true). When
// nobody of the group is online the offsets are reset with UPDATE_CONSUMER_OFFSET instead, as Java's
// tool does.
func newResetOffsetByTimeCommand(env *adminEnv) *cobra.Command {
	var group, topic, timeText, force string
	var cplus bool
	cmd := &cobra.Command{
		Use:   "resetOffsetByTime",
		Short: "Reset a consumer group's offsets of a topic to a point in time, without restarting its consumers",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			timeText = strings.TrimSpace(timeText)
			ts, err := parseResetTime(timeText, time.Local)
			if err != nil {
				return err
			}
			r := admin.ResetOffset{Topic: strings.TrimSpace(topic), Group: strings.TrimSpace(group), Timestamp: ts,
				Force: parseJavaBool(force), CPlus: cplus}
			c := env.client()
			defer c.Close()
			ctx, w := cmd.Context(), cmd.OutOrStdout()
			table, err := c.ResetOffsetByTimestamp(ctx, r)
			if admin.IsCode(err, protocol.ConsumerNotOnline) {
				stats, err := c.ResetOffsetByTimestampOld(ctx, r.Topic, r.Group, r.Timestamp, r.Force)
				printRollbackStats(cmd, r, timeText, stats)
				return err
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "rollback consumer offset by specified group[%s], topic[%s], force[%t], timestamp(string)[%s], timestamp(long)[%d]\n",
				r.Group, r.Topic, r.Force, timeText, r.Timestamp)
			fmt.Fprintf(w, "%-40s  %-40s  %s\n", "#brokerName", "#queueId", "#offset")
			for _, mq := range slices.SortedFunc(maps.Keys(table), body.MessageQueue.Compare) {
				fmt.Fprintf(w, "%-40s  %-40d  %d\n", atMost(mq.BrokerName, 32), mq.QueueID, table[mq])
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&group, "group", "g", "", "consumer group")
	fl.StringVarP(&topic, "topic", "t", "", "topic")
	fl.StringVarP(&timeText, "timestamp", "s", "", "the time to reset to: now, milliseconds since the epoch, or yyyy-MM-dd#HH:mm:ss:SSS")
	fl.StringVarP(&force, "force", "f", "true", "also move offsets forward (true|false)")
	fl.BoolVarP(&cplus, "cplus", "c", false, "the group's consumers are C++ clients")
	_ = cmd.MarkFlagRequired("group")
	_ = cmd.MarkFlagRequired("topic")
	_ = cmd.MarkFlagRequired("timestamp")
	return cmd
}

// parseResetTime reads -s as Java's tool does: "now" is -1 (the latest offset), else milliseconds,
// else yyyy-MM-dd#HH:mm:ss:SSS in loc.
func parseResetTime(s string, loc *time.Location) (int64, error) {
	if s == "now" {
		return -1, nil
	}
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil {
		return ms, nil
	}
	bad := fmt.Errorf("timestamp %q is neither now, milliseconds since the epoch nor yyyy-MM-dd#HH:mm:ss:SSS", s)
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return 0, bad
	}
	t, err := time.ParseInLocation(resetTimeLayout, s[:i], loc)
	ms, msErr := strconv.Atoi(s[i+1:])
	if err != nil || msErr != nil || len(s)-i-1 != 3 || ms < 0 {
		return 0, bad
	}
	return t.UnixMilli() + int64(ms), nil
}

// printRollbackStats writes Java's ResetOffsetByTimeOldCommand table.
func printRollbackStats(cmd *cobra.Command, r admin.ResetOffset, timeText string, stats []admin.RollbackStats) {
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "rollback consumer offset by specified consumerGroup[%s], topic[%s], force[%t], timestamp(string)[%s], timestamp(long)[%d]\n",
		r.Group, r.Topic, r.Force, timeText, r.Timestamp)
	fmt.Fprintf(w, "%-20s  %-20s  %-20s  %-20s  %-20s  %s\n",
		"#brokerName", "#queueId", "#brokerOffset", "#consumerOffset", "#timestampOffset", "#rollbackOffset")
	for _, s := range stats {
		fmt.Fprintf(w, "%-20s  %-20d  %-20d  %-20d  %-20d  %d\n",
			atMost(s.BrokerName, 32), s.QueueID, s.BrokerOffset, s.ConsumerOffset, s.TimestampOffset, s.RollbackOffset)
	}
}

// atMost is Java's UtilAll.frontStringAtLeast: s cut to n bytes.
func atMost(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
