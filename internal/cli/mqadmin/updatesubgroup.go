package mqadmin

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/rocketgo/rocketgo/internal/admin"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// updateSubGroupFlags are updateSubGroup's options, Java's letters and defaults.
type updateSubGroupFlags struct {
	group, brokerAddr, cluster string
	// "true"/"false", as Java takes them; "" when not given.
	consumeEnable, consumeFromMin, consumeBroadcast, notifyIDsChanged string
	retryQueueNums, retryMaxTimes                                     int
	brokerID, whichBrokerWhenSlow                                     int64
}

// newUpdateSubGroupCommand is `mqadmin updateSubGroup -g G (-b addr | -c cluster) [-s -m -d -q -r
// -i -w -a]`: create or replace a consumer group's config on one broker or on every master of a
// cluster (UPDATE_AND_CREATE_SUBSCRIPTIONGROUP). As Java's tool does, the whole config is sent:
// options not given take Java's defaults, except consumeFromMinEnable and consumeBroadcastEnable,
// which the tool turns off unless -m / -d say true.
func newUpdateSubGroupCommand(env *adminEnv) *cobra.Command {
	var f updateSubGroupFlags
	cmd := &cobra.Command{
		Use:   "updateSubGroup",
		Short: "Create or update a consumer group's subscription config on a broker or a cluster",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if (f.brokerAddr == "") == (f.cluster == "") {
				return errors.New("updateSubGroup needs either -b brokerAddr or -c clusterName")
			}
			c := env.client()
			defer c.Close()
			return runUpdateSubGroup(cmd, c, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.group, "groupName", "g", "", "consumer group name")
	fl.StringVarP(&f.brokerAddr, "brokerAddr", "b", "", "create the group on this broker")
	fl.StringVarP(&f.cluster, "clusterName", "c", "", "create the group on every master of this cluster")
	fl.StringVarP(&f.consumeEnable, "consumeEnable", "s", "", "consume enable (true|false, default true)")
	fl.StringVarP(&f.consumeFromMin, "consumeFromMinEnable", "m", "", "consume from the min offset (true|false, default false)")
	fl.StringVarP(&f.consumeBroadcast, "consumeBroadcastEnable", "d", "", "broadcast (true|false, default false)")
	fl.IntVarP(&f.retryQueueNums, "retryQueueNums", "q", 1, "retry queue count")
	fl.IntVarP(&f.retryMaxTimes, "retryMaxTimes", "r", 16, "retry max times")
	fl.Int64VarP(&f.brokerID, "brokerId", "i", body.MasterID, "consume from this broker id")
	fl.Int64VarP(&f.whichBrokerWhenSlow, "whichBrokerWhenConsumeSlowly", "w", 1, "broker id to consume from when consuming slowly")
	fl.StringVarP(&f.notifyIDsChanged, "notifyConsumerIdsChanged", "a", "", "notify consumer id changes (true|false, default true)")
	_ = cmd.MarkFlagRequired("groupName")
	return cmd
}

// subscriptionGroupConfig builds the config Java's UpdateSubGroupSubCommand sends.
func (f updateSubGroupFlags) subscriptionGroupConfig() body.SubscriptionGroupConfig {
	cfg := body.NewSubscriptionGroupConfig(f.group)
	cfg.ConsumeBroadcastEnable, cfg.ConsumeFromMinEnable = false, false
	set := func(dst *bool, v string) {
		if v != "" {
			*dst = parseJavaBool(v)
		}
	}
	set(&cfg.ConsumeEnable, f.consumeEnable)
	set(&cfg.ConsumeFromMinEnable, f.consumeFromMin)
	set(&cfg.ConsumeBroadcastEnable, f.consumeBroadcast)
	set(&cfg.NotifyConsumerIdsChangedEnable, f.notifyIDsChanged)
	cfg.RetryQueueNums, cfg.RetryMaxTimes = f.retryQueueNums, f.retryMaxTimes
	cfg.BrokerID, cfg.WhichBrokerWhenConsumeSlowly = f.brokerID, f.whichBrokerWhenSlow
	return cfg
}

func runUpdateSubGroup(cmd *cobra.Command, c *admin.Client, f updateSubGroupFlags) error {
	ctx, w := cmd.Context(), cmd.OutOrStdout()
	cfg := f.subscriptionGroupConfig()
	if f.brokerAddr != "" {
		if err := c.CreateSubscriptionGroup(ctx, f.brokerAddr, cfg); err != nil {
			return err
		}
		fmt.Fprintf(w, "create subscription group to %s success.\n", f.brokerAddr)
		printSubscriptionGroupConfig(w, cfg)
		return nil
	}
	done, err := c.CreateSubscriptionGroupInCluster(ctx, f.cluster, cfg)
	for _, addr := range done {
		fmt.Fprintf(w, "create subscription group to %s success.\n", addr)
	}
	if err != nil {
		return err
	}
	printSubscriptionGroupConfig(w, cfg)
	return nil
}

// printSubscriptionGroupConfig writes Java 4.9's SubscriptionGroupConfig.toString.
func printSubscriptionGroupConfig(w io.Writer, cfg body.SubscriptionGroupConfig) {
	fmt.Fprintf(w, "SubscriptionGroupConfig [groupName=%s, consumeEnable=%t, consumeFromMinEnable=%t, "+
		"consumeBroadcastEnable=%t, retryQueueNums=%d, retryMaxTimes=%d, brokerId=%d, whichBrokerWhenConsumeSlowly=%d, "+
		"notifyConsumerIdsChangedEnable=%t]\n", cfg.GroupName, cfg.ConsumeEnable, cfg.ConsumeFromMinEnable,
		cfg.ConsumeBroadcastEnable, cfg.RetryQueueNums, cfg.RetryMaxTimes, cfg.BrokerID, cfg.WhichBrokerWhenConsumeSlowly,
		cfg.NotifyConsumerIdsChangedEnable)
}
