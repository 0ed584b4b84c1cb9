package mqadmin

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rocketgo/rocketgo/internal/admin"
)

// dlqGroupTopicPrefix starts dead-letter topics (Java MixAll.DLQ_GROUP_TOPIC_PREFIX).
const dlqGroupTopicPrefix = "%DLQ%"

// newTopicListCommand is `mqadmin topicList [-c]`: every topic of the name server, one a line
// (GET_ALL_TOPIC_LIST_FROM_NAMESERVER); with -c a table of each topic's cluster and consumer
// groups, retry and dead-letter topics left out, as Java's does.
func newTopicListCommand(env *adminEnv) *cobra.Command {
	var withClusters bool
	cmd := &cobra.Command{
		Use:   "topicList",
		Short: "List the name server's topics",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c := env.client()
			defer c.Close()
			ctx, w := cmd.Context(), cmd.OutOrStdout()
			topics, err := c.TopicList(ctx)
			if err != nil {
				return err
			}
			if !withClusters {
				for _, t := range topics {
					fmt.Fprintln(w, t)
				}
				return nil
			}
			info, err := c.ClusterInfo(ctx)
			if err != nil {
				return err
			}
			const format = "%-20s  %-48s  %-48s\n"
			fmt.Fprintf(w, format, "#Cluster Name", "#Topic", "#Consumer Group")
			var errs []error
			for _, t := range topics {
				if strings.HasPrefix(t, admin.RetryGroupTopicPrefix) || strings.HasPrefix(t, dlqGroupTopicPrefix) {
					continue
				}
				clusters, groups, err := c.TopicGroups(ctx, info, t)
				if err != nil {
					errs = append(errs, err)
				}
				if len(groups) == 0 {
					groups = []string{""}
				}
				for _, g := range groups {
					fmt.Fprintf(w, format, strings.Join(clusters, ","), t, g)
				}
			}
			return errors.Join(errs...)
		},
	}
	cmd.Flags().BoolVarP(&withClusters, "clusterModel", "c", false, "also print each topic's cluster and consumer groups")
	return cmd
}
