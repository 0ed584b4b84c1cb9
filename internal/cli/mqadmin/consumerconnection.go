package mqadmin

import (
	"cmp"
	"fmt"
	"io"
	"slices"

	"github.com/spf13/cobra"

	"github.com/rocketgo/rocketgo/internal/admin"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// newConsumerConnectionCommand is `mqadmin consumerConnection -g G`: the group's online members,
// their subscriptions and consume settings (GET_CONSUMER_CONNECTION_LIST).
func newConsumerConnectionCommand(env *adminEnv) *cobra.Command {
	var group string
	cmd := &cobra.Command{
		Use:   "consumerConnection",
		Short: "Show a consumer group's online members and subscriptions",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c := env.client()
			defer c.Close()
			cc, err := c.ExamineConsumerConnection(cmd.Context(), group)
			if err != nil {
				return err
			}
			printConsumerConnection(cmd.OutOrStdout(), cc)
			return nil
		},
	}
	cmd.Flags().StringVarP(&group, "consumerGroup", "g", "", "consumer group name")
	_ = cmd.MarkFlagRequired("consumerGroup")
	return cmd
}

func printConsumerConnection(w io.Writer, cc *body.ConsumerConnection) {
	conns := slices.Clone(cc.ConnectionSet)
	slices.SortFunc(conns, func(a, b body.Connection) int { return cmp.Compare(a.ClientID, b.ClientID) })
	for i, conn := range conns {
		fmt.Fprintf(w, "%03d  %-32s %-22s %-8s %s\n", i+1, conn.ClientID, conn.ClientAddr, conn.Language,
			admin.VersionDesc(conn.Version))
	}
	fmt.Fprintf(w, "\nBelow is subscription:\n")
	for i, topic := range sortedKeysOf(cc.SubscriptionTable) {
		fmt.Fprintf(w, "%03d  Topic: %-40s SubExpression: %s\n", i+1, topic, cc.SubscriptionTable[topic].SubString)
	}
	fmt.Fprintf(w, "\nConsumeType: %s\nMessageModel: %s\nConsumeFromWhere: %s\n",
		cc.ConsumeType, cc.MessageModel, cc.ConsumeFromWhere)
}

func sortedKeysOf[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
