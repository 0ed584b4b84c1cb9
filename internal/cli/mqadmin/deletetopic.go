package mqadmin

import (
	"fmt"

	"github.com/spf13/cobra"
)

// newDeleteTopicCommand is `mqadmin deleteTopic -t T -c cluster`: delete the topic from every
// broker of the cluster (DELETE_TOPIC_IN_BROKER), then its route from the name servers
// (DELETE_TOPIC_IN_NAMESRV). If a broker refuses, the route is kept.
func newDeleteTopicCommand(env *adminEnv) *cobra.Command {
	var topic, cluster string
	cmd := &cobra.Command{
		Use:   "deleteTopic",
		Short: "Delete a topic from a cluster's brokers and the name servers",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c := env.client()
			defer c.Close()
			ctx, w := cmd.Context(), cmd.OutOrStdout()
			if _, err := c.DeleteTopicInCluster(ctx, cluster, topic); err != nil {
				return err
			}
			fmt.Fprintf(w, "delete topic [%s] from cluster [%s] success.\n", topic, cluster)
			if err := c.DeleteTopicInNamesrv(ctx, topic, cluster); err != nil {
				return err
			}
			fmt.Fprintf(w, "delete topic [%s] from NameServer success.\n", topic)
			return nil
		},
	}
	cmd.Flags().StringVarP(&topic, "topic", "t", "", "topic name")
	cmd.Flags().StringVarP(&cluster, "clusterName", "c", "", "delete the topic from this cluster")
	_ = cmd.MarkFlagRequired("topic")
	_ = cmd.MarkFlagRequired("clusterName")
	return cmd
}
