package mqadmin

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// newQueryMsgByIDCommand is `mqadmin queryMsgById -i OFFSET_MSG_ID[,ID...]`: each message in
// full. An offset message id holds the storing broker's address and the CommitLog offset, so the
// broker is asked directly (VIEW_MESSAGE_BY_ID); no name server is needed.
func newQueryMsgByIDCommand(env *adminEnv) *cobra.Command {
	var ids string
	cmd := &cobra.Command{
		Use:   "queryMsgById",
		Short: "Show a message by its offset message id",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c := env.client()
			defer c.Close()
			w := cmd.OutOrStdout()
			var errs []error
			printed := 0
			for _, id := range strings.Split(ids, ",") {
				if id = strings.TrimSpace(id); id == "" {
					continue
				}
				m, err := c.ViewMessageByOffsetID(cmd.Context(), id)
				if err != nil {
					errs = append(errs, err)
					continue
				}
				if printed > 0 {
					fmt.Fprintln(w)
				}
				printMessage(w, m)
				printed++
			}
			return errors.Join(errs...)
		},
	}
	cmd.Flags().StringVarP(&ids, "msgId", "i", "", "offset message id(s), comma separated")
	_ = cmd.MarkFlagRequired("msgId")
	return cmd
}
