package mqadmin

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// newSetConsumeModeCommand is `mqadmin setConsumeMode -t T -g G -m PULL|POP [-q n] (-b addr | -c
// cluster)`: how the group's consumers of the topic fetch when the broker assigns their queues
// (SET_MESSAGE_REQUEST_MODE; Java's SetConsumeModeSubCommand). -q is popShareQueueNum: a POP
// consumer also pops the queues of the next n consumers (0: every queue).
func newSetConsumeModeCommand(env *adminEnv) *cobra.Command {
	var topic, group, mode, addr, cluster string
	var share int
	cmd := &cobra.Command{
		Use:   "setConsumeMode",
		Short: "Set consume message mode. pull/pop etc.",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if (addr == "") == (cluster == "") {
				return errors.New("setConsumeMode needs either -b brokerAddr or -c clusterName")
			}
			m := body.SetMessageRequestModeRequestBody{Topic: strings.TrimSpace(topic), ConsumerGroup: strings.TrimSpace(group),
				Mode: strings.TrimSpace(mode), PopShareQueueNum: share}
			if m.Mode != body.RequestModePull && m.Mode != body.RequestModePop {
				return fmt.Errorf("setConsumeMode: mode %q is neither PULL nor POP", m.Mode)
			}
			c := env.client()
			defer c.Close()
			ctx, w := cmd.Context(), cmd.OutOrStdout()
			if addr != "" {
				if err := c.SetMessageRequestMode(ctx, addr, m); err != nil {
					return err
				}
				fmt.Fprintf(w, "set consume mode to %s success.\n", addr)
			} else {
				done, err := c.SetMessageRequestModeInCluster(ctx, cluster, m)
				for _, a := range done {
					fmt.Fprintf(w, "set consume mode to %s success.\n", a)
				}
				if err != nil {
					return err
				}
			}
			fmt.Fprintf(w, "topic[%s] group[%s] consume mode[%s] popShareQueueNum[%d]\n", m.Topic, m.ConsumerGroup, m.Mode, share)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&addr, "brokerAddr", "b", "", "set the mode on this broker")
	f.StringVarP(&cluster, "clusterName", "c", "", "set the mode on every master of this cluster")
	f.StringVarP(&topic, "topicName", "t", "", "topic name")
	f.StringVarP(&group, "groupName", "g", "", "consumer group name")
	f.StringVarP(&mode, "mode", "m", "", "consume mode: PULL or POP")
	f.IntVarP(&share, "popShareQueueNum", "q", 0, "number of queues shared in pop mode")
	for _, name := range []string{"topicName", "groupName", "mode"} {
		_ = cmd.MarkFlagRequired(name)
	}
	return cmd
}
