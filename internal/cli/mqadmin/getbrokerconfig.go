package mqadmin

import (
	"errors"
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/rocketgo/rocketgo/internal/admin"
	"github.com/rocketgo/rocketgo/internal/config"
)

// newGetBrokerConfigCommand is `mqadmin getBrokerConfig (-b addr | -c cluster)`: a broker's
// effective configuration (GET_BROKER_CONFIG), one "key  =  value" line per key, sorted; with -c
// every master of the cluster and its slaves, each under a banner as Java prints it.
func newGetBrokerConfigCommand(env *adminEnv) *cobra.Command {
	var addr, cluster string
	cmd := &cobra.Command{
		Use:   "getBrokerConfig",
		Short: "Print a broker's configuration",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if (addr == "") == (cluster == "") {
				return errors.New("getBrokerConfig needs either -b brokerAddr or -c clusterName")
			}
			c := env.client()
			defer c.Close()
			if addr != "" {
				return printBrokerConfig(cmd, c, fmt.Sprintf("============%s============\n", addr), addr)
			}
			info, err := c.ClusterInfo(cmd.Context())
			if err != nil {
				return err
			}
			groups, err := admin.ClusterMasterAndSlaves(info, cluster)
			if err != nil {
				return err
			}
			var errs []error
			for _, g := range groups {
				errs = append(errs, printBrokerConfig(cmd, c, fmt.Sprintf("============Master: %s============\n", g.Master), g.Master))
				for _, s := range g.Slaves {
					errs = append(errs, printBrokerConfig(cmd, c,
						fmt.Sprintf("============My Master: %s=====Slave: %s============\n", g.Master, s), s))
				}
			}
			return errors.Join(errs...)
		},
	}
	cmd.Flags().StringVarP(&addr, "brokerAddr", "b", "", "broker address")
	cmd.Flags().StringVarP(&cluster, "clusterName", "c", "", "every broker of this cluster")
	return cmd
}

// printBrokerConfig writes the banner, then the broker's configuration as Java's
// GetBrokerConfigCommand.getAndPrint does ("%-50s=  %s" per key, a blank line after).
func printBrokerConfig(cmd *cobra.Command, c *admin.Client, banner, addr string) error {
	w := cmd.OutOrStdout()
	fmt.Fprint(w, banner)
	text, _, err := c.BrokerConfig(cmd.Context(), addr)
	if err != nil {
		return err
	}
	props, err := config.ParseProperties([]byte(text))
	if err != nil {
		return fmt.Errorf("%s: the broker's configuration is not Java-properties text: %w", addr, err)
	}
	if len(props) == 0 {
		fmt.Fprintf(w, "Broker[%s] has no config property!\n", addr)
		return nil
	}
	kv := make(map[string]string, len(props))
	for _, p := range props {
		kv[p.Key] = p.Value // a repeated key keeps its last value, as Java's Properties does
	}
	keys := make([]string, 0, len(kv))
	for k := range kv {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "%-50s=  %s\n", k, kv[k])
	}
	fmt.Fprintln(w)
	return nil
}
