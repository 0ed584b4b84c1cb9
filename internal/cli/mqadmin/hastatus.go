package mqadmin

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rocketgo/rocketgo/internal/admin"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// newHAStatusCommand is `mqadmin haStatus (-b addr | -c cluster) [-i seconds]`: a broker's
// replication status in Java's layout (GET_BROKER_HA_STATUS); with -c every master of the
// cluster; with -i again every so many seconds until interrupted.
func newHAStatusCommand(env *adminEnv) *cobra.Command {
	var (
		addr, cluster string
		interval      int
	)
	cmd := &cobra.Command{
		Use:   "haStatus",
		Short: "Fetch ha runtime status data.",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			addr, cluster = strings.TrimSpace(addr), strings.TrimSpace(cluster)
			switch {
			case addr == "" && cluster == "":
				return errors.New("haStatus needs -b brokerAddr or -c clusterName")
			case interval <= 0:
				return fmt.Errorf("-i %d: want seconds, 1 or more", interval)
			}
			c := env.client()
			defer c.Close()
			if !cmd.Flags().Changed("interval") {
				return printHAStatuses(cmd, c, addr, cluster)
			}
			return repeatHAStatus(cmd, c, addr, cluster, time.Duration(interval)*time.Second)
		},
	}
	cmd.Flags().StringVarP(&cluster, "clusterName", "c", "", "which cluster")
	cmd.Flags().StringVarP(&addr, "brokerAddr", "b", "", "which broker to fetch")
	cmd.Flags().IntVarP(&interval, "interval", "i", 3, "the interval(second) of get info")
	return cmd
}

// repeatHAStatus prints the status every interval until the command is interrupted.
func repeatHAStatus(cmd *cobra.Command, c *admin.Client, addr, cluster string, every time.Duration) error {
	ctx := cmd.Context()
	for {
		if err := printHAStatuses(cmd, c, addr, cluster); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		select {
		case <-ctx.Done():
			return nil // interrupted: the end of an -i run
		case <-time.After(every):
		}
	}
}

// printHAStatuses prints -b's broker, or else every master of -c's cluster, as Java does.
func printHAStatuses(cmd *cobra.Command, c *admin.Client, addr, cluster string) error {
	ctx, w := cmd.Context(), cmd.OutOrStdout()
	addrs := []string{addr}
	if addr == "" {
		info, err := c.ClusterInfo(ctx)
		if err != nil {
			return err
		}
		masters, err := admin.ClusterBrokers(info, cluster, true)
		if err != nil {
			return err
		}
		addrs = addrs[:0]
		for _, m := range masters {
			addrs = append(addrs, m.Addr)
		}
	}
	for _, a := range addrs {
		info, err := c.BrokerHAStatus(ctx, a)
		if err != nil {
			return err
		}
		printHAStatus(w, a, info)
	}
	return nil
}

// printHAStatus prints one broker's status in Java's HAStatusSubCommand layout.
func printHAStatus(w io.Writer, addr string, info *body.HARuntimeInfo) {
	if !info.Master {
		printHAClientStatus(w, info.HAClientRuntimeInfo)
		return
	}
	fmt.Fprintf(w, "\n#MasterAddr\t%s\n#MasterCommitLogMaxOffset\t%d\n#SlaveNum\t%d\n#InSyncSlaveNum\t%d\n",
		addr, info.MasterCommitLogMaxOffset, len(info.HAConnectionInfo), info.InSyncSlaveNums)
	fmt.Fprintf(w, "%-32s  %-16s %16s %16s %16s %16s\n",
		"#SlaveAddr", "#SlaveAckOffset", "#Diff", "#TransferSpeed(KB/s)", "#Status", "#TransferFromWhere")
	for _, s := range info.HAConnectionInfo {
		status := "Fall Behind"
		if s.InSync {
			status = "OK"
		}
		fmt.Fprintf(w, "%-32s  %-16d %16d %16.2f %16s %16d\n", s.Addr, s.SlaveAckOffset, s.Diff,
			float64(s.TransferredByteInSecond)/1024, status, s.TransferFromWhere)
	}
}

// printHAClientStatus prints a slave's view of its master.
func printHAClientStatus(w io.Writer, r body.HAClientRuntimeInfo) {
	master := r.MasterAddr
	if master == "" {
		master = "null" // Java prints its null address so
	}
	fmt.Fprintf(w, "\n#MasterAddr\t%s\n", master)
	fmt.Fprintf(w, "#CommitLogMaxOffset\t%d\n", r.MaxOffset)
	fmt.Fprintf(w, "#TransferSpeed(KB/s)\t%.2f\n", float64(r.TransferredByteInSecond)/1024)
	fmt.Fprintf(w, "#LastReadTime\t%s\n", humanMillis(r.LastReadTimestamp))
	fmt.Fprintf(w, "#LastWriteTime\t%s\n", humanMillis(r.LastWriteTimestamp))
	fmt.Fprintf(w, "#MasterFlushOffset\t%d\n", r.MasterFlushOffset)
}

// humanMillis is Java's UtilAll.timeMillisToHumanString2 in local time, 0 included (the epoch),
// as haStatus prints it.
func humanMillis(ms int64) string { return time.UnixMilli(ms).Format("2006-01-02 15:04:05,000") }
