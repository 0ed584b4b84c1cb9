package mqadmin

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/rocketgo/rocketgo/internal/admin"
)

// newBrokerStatusCommand is `mqadmin brokerStatus (-b addr | -c cluster)`: a broker's runtime
// statistics, "key: value" sorted by key (GET_BROKER_RUNTIME_INFO); with -c every broker of the
// cluster, each line prefixed by its address.
func newBrokerStatusCommand(env *adminEnv) *cobra.Command {
	var addr, cluster string
	cmd := &cobra.Command{
		Use:   "brokerStatus",
		Short: "Print a broker's runtime statistics",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if (addr == "") == (cluster == "") {
				return errors.New("brokerStatus needs either -b brokerAddr or -c clusterName")
			}
			c := env.client()
			defer c.Close()
			ctx, w := cmd.Context(), cmd.OutOrStdout()
			if addr != "" {
				kv, err := c.BrokerRuntimeInfo(ctx, addr)
				if err != nil {
					return err
				}
				for _, k := range sortedKeysOf(kv) {
					fmt.Fprintf(w, "%-32s: %s\n", k, kv[k])
				}
				return nil
			}
			info, err := c.ClusterInfo(ctx)
			if err != nil {
				return err
			}
			brokers, err := admin.ClusterBrokers(info, cluster, false)
			if err != nil {
				return err
			}
			var errs []error
			for _, b := range brokers {
				kv, err := c.BrokerRuntimeInfo(ctx, b.Addr)
				if err != nil {
					errs = append(errs, err)
					continue
				}
				for _, k := range sortedKeysOf(kv) {
					fmt.Fprintf(w, "%-24s %-32s: %s\n", b.Addr, k, kv[k])
				}
			}
			return errors.Join(errs...)
		},
	}
	cmd.Flags().StringVarP(&addr, "brokerAddr", "b", "", "broker address")
	cmd.Flags().StringVarP(&cluster, "clusterName", "c", "", "every broker of this cluster")
	return cmd
}
