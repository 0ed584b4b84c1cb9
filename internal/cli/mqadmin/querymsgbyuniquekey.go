package mqadmin

import (
	"fmt"

	"github.com/spf13/cobra"
)

// newQueryMsgByUniqueKeyCommand is `mqadmin queryMsgByUniqueKey -i UNIQ_KEY -t T`: the message a
// producer's send returned this id for, in full (QUERY_MESSAGE with _UNIQUE_KEY_QUERY=true on
// every broker of the topic's route). Every stored copy is printed.
func newQueryMsgByUniqueKeyCommand(env *adminEnv) *cobra.Command {
	var id, topic string
	cmd := &cobra.Command{
		Use:   "queryMsgByUniqueKey",
		Short: "Show a message by its unique id (UNIQ_KEY)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c := env.client()
			defer c.Close()
			msgs, err := c.QueryMessageByUniqKey(cmd.Context(), topic, id)
			w := cmd.OutOrStdout()
			for i, m := range msgs {
				if i > 0 {
					fmt.Fprintln(w)
				}
				printMessage(w, m)
			}
			return err
		},
	}
	cmd.Flags().StringVarP(&id, "msgId", "i", "", "message id (UNIQ_KEY)")
	cmd.Flags().StringVarP(&topic, "topic", "t", "", "topic name")
	_ = cmd.MarkFlagRequired("msgId")
	_ = cmd.MarkFlagRequired("topic")
	return cmd
}
