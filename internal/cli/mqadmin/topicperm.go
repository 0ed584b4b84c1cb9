package mqadmin

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rocketgo/rocketgo/internal/admin"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// newUpdateTopicPermCommand is `mqadmin updateTopicPerm -t T -p 2|4|6 (-b addr | -c cluster)`:
// the topic's permission on one master or on every master of a cluster (UPDATE_AND_CREATE_TOPIC
// with the topic's configuration and the new perm).
func newUpdateTopicPermCommand(env *adminEnv) *cobra.Command {
	var (
		topic, addr, cluster string
		perm                 int
	)
	cmd := &cobra.Command{
		Use:   "updateTopicPerm",
		Short: "Update topic perm",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if (addr == "") == (cluster == "") {
				return errors.New("updateTopicPerm needs either -b brokerAddr or -c clusterName")
			}
			if perm < 0 || perm > 7 {
				return fmt.Errorf("-p %d: want a permission 0-7 (2 write, 4 read, 6 read and write)", perm)
			}
			c := env.client()
			defer c.Close()
			return runUpdateTopicPerm(cmd, c, strings.TrimSpace(topic), strings.TrimSpace(addr), strings.TrimSpace(cluster), perm)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&topic, "topic", "t", "", "topic name")
	fl.StringVarP(&addr, "brokerAddr", "b", "", "update the topic on this master")
	fl.StringVarP(&cluster, "clusterName", "c", "", "update the topic on every master of this cluster")
	fl.IntVarP(&perm, "perm", "p", 0, "set topic's permission(2|4|6), intro[2:W; 4:R; 6:RW]")
	_ = cmd.MarkFlagRequired("topic")
	_ = cmd.MarkFlagRequired("perm")
	return cmd
}

func runUpdateTopicPerm(cmd *cobra.Command, c *admin.Client, topic, addr, cluster string, perm int) error {
	ctx, w := cmd.Context(), cmd.OutOrStdout()
	route, err := c.TopicRoute(ctx, topic)
	if err != nil {
		return err
	}
	if len(route.QueueDatas) == 0 {
		return fmt.Errorf("the route of topic %s has no queues", topic)
	}
	if addr != "" {
		name := masterName(route, addr)
		if name == "" {
			return fmt.Errorf("updateTopicPerm error broker not exit or broker is not master!: %s", addr)
		}
		qd := queueDataOf(route, name)
		if qd.Perm == perm {
			fmt.Fprintln(w, "new perm equals to the old one!")
			return nil
		}
		tc, err := c.TopicWithPerm(ctx, addr, topic, qd, perm)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "update topic perm from %d to %d in %s success.\n", qd.Perm, perm, addr)
		printTopicConfigDot(w, tc)
		return nil
	}
	info, err := c.ClusterInfo(ctx)
	if err != nil {
		return err
	}
	masters, err := admin.ClusterBrokers(info, cluster, true)
	if err != nil {
		return err
	}
	var errs []error
	for _, m := range masters {
		qd := queueDataOf(route, m.BrokerName)
		if _, err := c.TopicWithPerm(ctx, m.Addr, topic, qd, perm); err != nil {
			errs = append(errs, err)
			continue
		}
		fmt.Fprintf(w, "update topic perm from %d to %d in %s success.\n", qd.Perm, perm, m.Addr)
	}
	return errors.Join(errs...)
}

// masterName is the broker name whose master is addr in the route, or "".
func masterName(route *body.TopicRouteData, addr string) string {
	for _, bd := range route.BrokerDatas {
		if bd.BrokerAddrs[body.MasterID] == addr {
			return bd.BrokerName
		}
	}
	return ""
}

// queueDataOf is the route's queues of a broker name, else its first queues (which Java takes
// for every broker).
func queueDataOf(route *body.TopicRouteData, brokerName string) body.QueueData {
	for _, qd := range route.QueueDatas {
		if qd.BrokerName == brokerName {
			return qd
		}
	}
	return route.QueueDatas[0]
}

// printTopicConfigDot is Java's "%s.%n" of a TopicConfig.
func printTopicConfigDot(w io.Writer, tc body.TopicConfig) {
	var b strings.Builder
	printTopicConfig(&b, tc)
	fmt.Fprintf(w, "%s.\n", strings.TrimSuffix(b.String(), "\n"))
}

// newTopicClusterListCommand is `mqadmin topicClusterList -t T`: the clusters whose brokers
// serve the topic, one a line.
func newTopicClusterListCommand(env *adminEnv) *cobra.Command {
	var topic string
	cmd := &cobra.Command{
		Use:   "topicClusterList",
		Short: "Get cluster info for topic",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c := env.client()
			defer c.Close()
			clusters, err := c.TopicClusters(cmd.Context(), strings.TrimSpace(topic))
			if err != nil {
				return err
			}
			for _, cl := range clusters {
				fmt.Fprintln(cmd.OutOrStdout(), cl)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&topic, "topic", "t", "", "topic name")
	_ = cmd.MarkFlagRequired("topic")
	return cmd
}
