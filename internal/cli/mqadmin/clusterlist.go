package mqadmin

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rocketgo/rocketgo/internal/admin"
)

// newClusterListCommand is `mqadmin clusterList [-m] [-c cluster] [-i seconds]`: every broker of
// every cluster (or of -c's, RocketMQ 5) with its version and load (GET_BROKER_CLUSTER_INFO, then
// GET_BROKER_RUNTIME_INFO per broker); with -i the table again every so many seconds until
// interrupted.
func newClusterListCommand(env *adminEnv) *cobra.Command {
	var (
		moreStats bool
		cluster   string
		interval  int
	)
	cmd := &cobra.Command{
		Use:   "clusterList",
		Short: "List cluster infos",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if interval < 0 {
				return fmt.Errorf("-i %d: want seconds, 0 or more", interval)
			}
			c := env.client()
			defer c.Close()
			ctx := cmd.Context()
			for i := 0; ; i++ {
				if i > 0 {
					select {
					case <-ctx.Done():
						return nil
					case <-time.After(time.Duration(interval) * time.Second):
					}
				}
				err := printClusterList(cmd, c, strings.TrimSpace(cluster), moreStats)
				if !cmd.Flags().Changed("interval") {
					return err
				}
				if ctx.Err() != nil {
					return nil // interrupted: the end of an -i run
				}
				if err != nil {
					return err
				}
			}
		},
	}
	cmd.Flags().BoolVarP(&moreStats, "moreStats", "m", false, "print message totals of yesterday and today")
	cmd.Flags().StringVarP(&cluster, "clusterName", "c", "", "which cluster")
	cmd.Flags().IntVarP(&interval, "interval", "i", 1, "print again every so many seconds")
	return cmd
}

// printClusterList prints the table once.
func printClusterList(cmd *cobra.Command, c *admin.Client, cluster string, moreStats bool) error {
	info, err := c.ClusterInfo(cmd.Context())
	if err != nil {
		return err
	}
	brokers := admin.Brokers(info)
	if cluster != "" {
		brokers = slices.DeleteFunc(brokers, func(b admin.BrokerAddr) bool { return b.Cluster != cluster })
	}
	stats := make([]map[string]string, len(brokers))
	var errs []error
	for i, b := range brokers {
		if stats[i], err = c.BrokerRuntimeInfo(cmd.Context(), b.Addr); err != nil {
			errs = append(errs, err)
		}
	}
	if moreStats {
		printClusterTotals(cmd.OutOrStdout(), brokers, stats)
	} else {
		printClusterBase(cmd.OutOrStdout(), brokers, stats, time.Now())
	}
	return errors.Join(errs...)
}

// printClusterBase writes Java's clusterList table. The in and out TPS are the first (10 s)
// figure of putTps and getTransferedTps, followed by the send or pull queue size and its head's
// wait; Hour is the age of the oldest stored message, SPACE the CommitLog disk's used ratio. A
// broker whose statistics could not be read shows 0 and blanks.
func printClusterBase(w io.Writer, brokers []admin.BrokerAddr, stats []map[string]string, now time.Time) {
	const format = "%-16s  %-22s  %-4s  %-22s %-16s %19s %19s %10s %5s %6s\n"
	fmt.Fprintf(w, format, "#Cluster Name", "#Broker Name", "#BID", "#Addr", "#Version",
		"#InTPS(LOAD)", "#OutTPS(LOAD)", "#PCWait(ms)", "#Hour", "#SPACE")
	for i, b := range brokers {
		kv := stats[i]
		out := kv["getTransferedTps"]
		if out == "" {
			out = kv["getTransferredTps"]
		}
		hour := 0.0
		if t, err := strconv.ParseInt(kv["earliestMessageTimeStamp"], 10, 64); err == nil && t > 0 {
			hour = float64(now.UnixMilli()-t) / float64(time.Hour/time.Millisecond)
		}
		space, _ := strconv.ParseFloat(kv["commitLogDiskRatio"], 64)
		fmt.Fprintf(w, format, b.Cluster, b.BrokerName, strconv.FormatInt(b.BrokerID, 10), b.Addr, kv["brokerVersionDesc"],
			fmt.Sprintf("%9.2f(%s,%sms)", firstTps(kv["putTps"]), kv["sendThreadPoolQueueSize"], kv["sendThreadPoolQueueHeadWaitTimeMills"]),
			fmt.Sprintf("%9.2f(%s,%sms)", firstTps(out), kv["pullThreadPoolQueueSize"], kv["pullThreadPoolQueueHeadWaitTimeMills"]),
			kv["pageCacheLockTimeMills"], fmt.Sprintf("%2.2f", hour), fmt.Sprintf("%.4f", space))
	}
}

// printClusterTotals writes Java's clusterList -m table: messages put and got yesterday and today.
func printClusterTotals(w io.Writer, brokers []admin.BrokerAddr, stats []map[string]string) {
	fmt.Fprintf(w, "%-16s  %-32s %14s %14s %14s %14s\n",
		"#Cluster Name", "#Broker Name", "#InTotalYest", "#OutTotalYest", "#InTotalToday", "#OutTotalToday")
	for i, b := range brokers {
		n := func(key string) int64 {
			v, _ := strconv.ParseInt(stats[i][key], 10, 64)
			return v
		}
		fmt.Fprintf(w, "%-16s  %-32s %14d %14d %14d %14d\n", b.Cluster, b.BrokerName,
			n("msgPutTotalTodayMorning")-n("msgPutTotalYesterdayMorning"),
			n("msgGetTotalTodayMorning")-n("msgGetTotalYesterdayMorning"),
			n("msgPutTotalTodayNow")-n("msgPutTotalTodayMorning"),
			n("msgGetTotalTodayNow")-n("msgGetTotalTodayMorning"))
	}
}

// firstTps is the first figure of a "tps10 tps60 tps600" runtime value; 0 if there is none.
func firstTps(v string) float64 {
	fields := strings.Fields(v)
	if len(fields) == 0 {
		return 0
	}
	f, _ := strconv.ParseFloat(fields[0], 64)
	return f
}
