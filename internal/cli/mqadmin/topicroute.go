package mqadmin

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// newTopicRouteCommand is `mqadmin topicRoute -t T`: the topic's route as indented JSON
// (GET_ROUTEINFO_BY_TOPIC).
func newTopicRouteCommand(env *adminEnv) *cobra.Command {
	var topic string
	cmd := &cobra.Command{
		Use:   "topicRoute",
		Short: "Print a topic's route as JSON",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c := env.client()
			defer c.Close()
			route, err := c.TopicRoute(cmd.Context(), topic)
			if err != nil {
				return err
			}
			text, err := body.MarshalIndent(route)
			if err != nil {
				return fmt.Errorf("encode route: %w", err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s\n", text)
			return nil
		},
	}
	cmd.Flags().StringVarP(&topic, "topic", "t", "", "topic name")
	_ = cmd.MarkFlagRequired("topic")
	return cmd
}
