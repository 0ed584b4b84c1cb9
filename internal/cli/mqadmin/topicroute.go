package mqadmin

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// newTopicRouteCommand is `mqadmin topicRoute -t T [-l]`: the topic's route as indented JSON
// (GET_ROUTEINFO_BY_TOPIC), or with -l (RocketMQ 5) one line per broker group and the totals.
func newTopicRouteCommand(env *adminEnv) *cobra.Command {
	var (
		topic string
		list  bool
	)
	cmd := &cobra.Command{
		Use:   "topicRoute",
		Short: "Examine topic route info",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c := env.client()
			defer c.Close()
			route, err := c.TopicRoute(cmd.Context(), strings.TrimSpace(topic))
			if err != nil {
				return err
			}
			if list {
				printRouteList(cmd.OutOrStdout(), route)
				return nil
			}
			text, err := body.MarshalIndent(route)
			if err != nil {
				return fmt.Errorf("encode route: %w", err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s\n", text)
			return nil
		},
	}
	cmd.Flags().StringVarP(&topic, "topic", "t", "", "topic name")
	cmd.Flags().BoolVarP(&list, "list", "l", false, "Use list format to print data")
	_ = cmd.MarkFlagRequired("topic")
	return cmd
}

// printRouteList is Java 5's TopicRouteSubCommand list format: broker groups by name with their
// addresses as a Java map prints, queue counts and perm, a rule, then the totals.
func printRouteList(w io.Writer, route *body.TopicRouteData) {
	const format = "%-45s %-32s %-50s %-10s %-11s %-5s\n"
	queues := map[string]body.QueueData{}
	for _, qd := range route.QueueDatas {
		queues[qd.BrokerName] = qd
	}
	bds := slices.Clone(route.BrokerDatas)
	slices.SortFunc(bds, func(a, b body.BrokerData) int { return cmp.Compare(a.BrokerName, b.BrokerName) })
	fmt.Fprintf(w, format, "#ClusterName", "#BrokerName", "#BrokerAddrs", "#ReadQueue", "#WriteQueue", "#Perm")
	var reads, writes int
	for _, bd := range bds {
		qd, ok := queues[bd.BrokerName]
		if !ok {
			continue
		}
		reads, writes = reads+qd.ReadQueueNums, writes+qd.WriteQueueNums
		fmt.Fprintf(w, format, bd.Cluster, bd.BrokerName, javaAddrMap(bd.BrokerAddrs),
			strconv.Itoa(qd.ReadQueueNums), strconv.Itoa(qd.WriteQueueNums), strconv.Itoa(qd.Perm))
	}
	fmt.Fprintln(w, strings.Repeat("-", 158))
	fmt.Fprintf(w, format, "Total:", strconv.Itoa(len(queues)), "", strconv.Itoa(reads), strconv.Itoa(writes), "")
}

// javaAddrMap prints broker addresses as Java's HashMap<Long, String> does: {0=addr, 1=addr}.
func javaAddrMap(addrs body.BrokerAddrs) string {
	ids := make([]int64, 0, len(addrs))
	for id := range addrs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.FormatInt(id, 10) + "=" + addrs[id]
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
