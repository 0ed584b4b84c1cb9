package mqadmin

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/rocketgo/rocketgo/internal/admin"
)

// newDeleteSubGroupCommand is `mqadmin deleteSubGroup -g G (-b addr | -c cluster) [-r true]`:
// remove a consumer group's config from one broker or from every master of a cluster
// (DELETE_SUBSCRIPTIONGROUP; -r true also drops its committed offsets). With -c the group's retry
// and dead-letter topics are then deleted from the cluster and the name servers, as Java's tool
// does; a failure there is reported on stderr without failing the command.
func newDeleteSubGroupCommand(env *adminEnv) *cobra.Command {
	var group, addr, cluster, removeOffset string
	cmd := &cobra.Command{
		Use:   "deleteSubGroup",
		Short: "Delete a consumer group's subscription config from a broker or a cluster",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if (addr == "") == (cluster == "") {
				return errors.New("deleteSubGroup needs either -b brokerAddr or -c clusterName")
			}
			c := env.client()
			defer c.Close()
			ctx, w := cmd.Context(), cmd.OutOrStdout()
			remove := parseJavaBool(removeOffset)
			if addr != "" {
				if err := c.DeleteSubscriptionGroup(ctx, addr, group, remove); err != nil {
					return err
				}
				fmt.Fprintf(w, "delete subscription group [%s] from broker [%s] success.\n", group, addr)
				return nil
			}
			done, err := c.DeleteSubscriptionGroupInCluster(ctx, cluster, group, remove)
			for _, a := range done {
				fmt.Fprintf(w, "delete subscription group [%s] from broker [%s] in cluster [%s] success.\n", group, a, cluster)
			}
			if err != nil {
				return err
			}
			for _, topic := range []string{admin.RetryGroupTopicPrefix + group, admin.DLQGroupTopicPrefix + group} {
				if err := deleteTopicFromCluster(cmd, c, cluster, topic); err != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "delete topic [%s]: %v\n", topic, err)
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&group, "groupName", "g", "", "consumer group name")
	cmd.Flags().StringVarP(&addr, "brokerAddr", "b", "", "delete the group from this broker")
	cmd.Flags().StringVarP(&cluster, "clusterName", "c", "", "delete the group from every master of this cluster")
	cmd.Flags().StringVarP(&removeOffset, "removeOffset", "r", "false", "also remove the group's offsets (true|false)")
	_ = cmd.MarkFlagRequired("groupName")
	return cmd
}

// deleteTopicFromCluster is what deleteTopic does: the topic leaves every broker of the cluster,
// then the name servers, each step reported as Java's DeleteTopicSubCommand.deleteTopic does.
func deleteTopicFromCluster(cmd *cobra.Command, c *admin.Client, cluster, topic string) error {
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
}
