package mqadmin

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rocketgo/rocketgo/internal/admin"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// newProducerConnectionCommand is `mqadmin producerConnection -g G -t T`: the connections of a
// producer group that sends to a topic (GET_PRODUCER_CONNECTION_LIST on the topic's brokers), in
// 4.9's columns.
func newProducerConnectionCommand(env *adminEnv) *cobra.Command {
	var group, topic string
	cmd := &cobra.Command{
		Use:   "producerConnection",
		Short: "Query producer's socket connection and client version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c := env.client()
			defer c.Close()
			pc, err := c.ExamineProducerConnection(cmd.Context(), strings.TrimSpace(group), strings.TrimSpace(topic))
			if err != nil {
				return err
			}
			printProducerConnection(cmd.OutOrStdout(), pc)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&group, "producerGroup", "g", "", "producer group name")
	fl.StringVarP(&topic, "topic", "t", "", "topic name")
	_ = cmd.MarkFlagRequired("producerGroup")
	_ = cmd.MarkFlagRequired("topic")
	return cmd
}

func printProducerConnection(w io.Writer, pc *body.ProducerConnection) {
	for i, conn := range pc.ConnectionSet {
		fmt.Fprintf(w, "%04d  %-32s %-22s %-8s %s\n", i+1, conn.ClientID, conn.ClientAddr, conn.Language,
			admin.VersionDesc(conn.Version))
	}
}
