package mqadmin

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rocketgo/rocketgo/internal/admin"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// newUpdateBrokerConfigCommand is `mqadmin updateBrokerConfig (-b addr | -c cluster [-a true])
// -k key -v value`: the key changes on one broker, on every master of the cluster, or with -a
// (RocketMQ 5) on its slaves too (UPDATE_BROKER_CONFIG). Which keys a broker changes at run time is
// the broker's to say; the others it refuses with a remark.
func newUpdateBrokerConfigCommand(env *adminEnv) *cobra.Command {
	var addr, cluster, all, key, value string
	cmd := &cobra.Command{
		Use:   "updateBrokerConfig",
		Short: "Update broker's config",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if (addr == "") == (cluster == "") {
				return errors.New("updateBrokerConfig needs either -b brokerAddr or -c clusterName")
			}
			c := env.client()
			defer c.Close()
			props := []body.Property{{Key: strings.TrimSpace(key), Value: strings.TrimSpace(value)}}
			addrs := []string{strings.TrimSpace(addr)}
			if cluster != "" {
				var err error
				if addrs, err = clusterAddrs(cmd, c, strings.TrimSpace(cluster), cmd.Flags().Changed("updateAllBroker")); err != nil {
					return err
				}
			}
			var errs []error
			for _, a := range addrs {
				if err := c.UpdateBrokerConfig(cmd.Context(), a, props); err != nil {
					errs = append(errs, err)
					continue
				}
				fmt.Fprintf(cmd.OutOrStdout(), "update broker config success, %s\n", a)
			}
			return errors.Join(errs...)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&addr, "brokerAddr", "b", "", "update which broker")
	fl.StringVarP(&cluster, "clusterName", "c", "", "update which cluster")
	fl.StringVarP(&all, "updateAllBroker", "a", "", "update all brokers include slave (any value)")
	fl.StringVarP(&key, "key", "k", "", "config key")
	fl.StringVarP(&value, "value", "v", "", "config value")
	_ = cmd.MarkFlagRequired("key")
	_ = cmd.MarkFlagRequired("value")
	return cmd
}

// clusterAddrs lists the masters of a cluster, and with slaves their slaves too, in the order
// of admin.Brokers.
func clusterAddrs(cmd *cobra.Command, c *admin.Client, cluster string, slaves bool) ([]string, error) {
	info, err := c.ClusterInfo(cmd.Context())
	if err != nil {
		return nil, err
	}
	brokers, err := admin.ClusterBrokers(info, cluster, !slaves)
	if err != nil {
		return nil, err
	}
	addrs := make([]string, len(brokers))
	for i, b := range brokers {
		addrs[i] = b.Addr
	}
	return addrs, nil
}
