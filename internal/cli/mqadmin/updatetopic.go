package mqadmin

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/rocketgo/rocketgo/internal/admin"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// Topic sys flag bits (Java TopicSysFlag).
const (
	topicSysFlagUnit    = 1 << 0
	topicSysFlagUnitSub = 1 << 1
)

// updateTopicFlags are updateTopic's options, Java's letters and defaults.
type updateTopicFlags struct {
	topic, brokerAddr, cluster string
	readQueues, writeQueues    int
	perm                       int
	order, unit, hasUnitSub    string // "true"/"false", as Java takes them
}

// newUpdateTopicCommand is `mqadmin updateTopic -t T (-b addr | -c cluster) [-r 8 -w 8 -p 6 -o
// false]`: create or update a topic on one broker or on every master of a cluster
// (UPDATE_AND_CREATE_TOPIC). An order topic's layout is also recorded on the name servers.
func newUpdateTopicCommand(env *adminEnv) *cobra.Command {
	var f updateTopicFlags
	cmd := &cobra.Command{
		Use:   "updateTopic",
		Short: "Create or update a topic on a broker or a cluster",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if (f.brokerAddr == "") == (f.cluster == "") {
				return errors.New("updateTopic needs either -b brokerAddr or -c clusterName")
			}
			c := env.client()
			defer c.Close()
			return runUpdateTopic(cmd, c, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.topic, "topic", "t", "", "topic name")
	fl.StringVarP(&f.brokerAddr, "brokerAddr", "b", "", "create the topic on this broker")
	fl.StringVarP(&f.cluster, "clusterName", "c", "", "create the topic on every master of this cluster")
	fl.IntVarP(&f.readQueues, "readQueueNums", "r", 8, "read queue count")
	fl.IntVarP(&f.writeQueues, "writeQueueNums", "w", 8, "write queue count")
	fl.IntVarP(&f.perm, "perm", "p", body.PermRead|body.PermWrite, "permission: 2 write, 4 read, 6 read and write")
	fl.StringVarP(&f.order, "order", "o", "false", "order topic (true|false)")
	fl.StringVarP(&f.unit, "unit", "u", "false", "unit topic (true|false)")
	fl.StringVarP(&f.hasUnitSub, "hasUnitSub", "s", "false", "has unit subscriptions (true|false)")
	_ = cmd.MarkFlagRequired("topic")
	return cmd
}

func runUpdateTopic(cmd *cobra.Command, c *admin.Client, f updateTopicFlags) error {
	ctx, w := cmd.Context(), cmd.OutOrStdout()
	tc := body.NewTopicConfig(f.topic)
	tc.ReadQueueNums, tc.WriteQueueNums, tc.Perm = f.readQueues, f.writeQueues, f.perm
	tc.Order = parseJavaBool(f.order)
	if parseJavaBool(f.unit) {
		tc.TopicSysFlag |= topicSysFlagUnit
	}
	if parseJavaBool(f.hasUnitSub) {
		tc.TopicSysFlag |= topicSysFlagUnitSub
	}

	if f.brokerAddr != "" {
		if err := c.CreateTopic(ctx, f.brokerAddr, tc); err != nil {
			return err
		}
		fmt.Fprintf(w, "create topic to %s success.\n", f.brokerAddr)
		if tc.Order {
			info, err := c.ClusterInfo(ctx)
			if err != nil {
				return err
			}
			name := admin.BrokerNameOf(info, f.brokerAddr)
			if name == "" {
				return fmt.Errorf("broker %s is not registered with the name server: cannot record the order conf", f.brokerAddr)
			}
			conf, err := c.UpdateOrderConf(ctx, tc.TopicName, map[string]int{name: tc.WriteQueueNums}, true)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "set broker orderConf. isOrder=true, orderConf=[%s]\n", conf)
		}
		printTopicConfig(w, tc)
		return nil
	}

	done, err := c.CreateTopicInCluster(ctx, f.cluster, tc)
	for _, addr := range done {
		fmt.Fprintf(w, "create topic to %s success.\n", addr)
	}
	if err != nil {
		return err
	}
	if tc.Order {
		info, err := c.ClusterInfo(ctx)
		if err != nil {
			return err
		}
		masters, err := admin.ClusterBrokers(info, f.cluster, true)
		if err != nil {
			return err
		}
		layout := map[string]int{}
		for _, m := range masters {
			layout[m.BrokerName] = tc.WriteQueueNums
		}
		conf, err := c.UpdateOrderConf(ctx, tc.TopicName, layout, false)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "set cluster orderConf. isOrder=true, orderConf=[%s]\n", conf)
	}
	printTopicConfig(w, tc)
	return nil
}

// printTopicConfig writes Java's TopicConfig.toString.
func printTopicConfig(w io.Writer, tc body.TopicConfig) {
	fmt.Fprintf(w, "TopicConfig [topicName=%s, readQueueNums=%d, writeQueueNums=%d, perm=%s, topicFilterType=%s, topicSysFlag=%d, order=%t]\n",
		tc.TopicName, tc.ReadQueueNums, tc.WriteQueueNums, permString(tc.Perm), tc.TopicFilterType, tc.TopicSysFlag, tc.Order)
}
