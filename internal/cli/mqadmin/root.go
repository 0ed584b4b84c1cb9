// Package mqadmin is the mqadmin command: Apache RocketMQ's admin tool's subcommands and flags,
// each a small file that calls internal/admin and prints as the Java tool does.
package mqadmin

import (
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/rocketgo/rocketgo/internal/admin"
)

// adminEnv is what every mqadmin subcommand shares: the name server list (-n, else
// NAMESRV_ADDR) and the request timeout.
type adminEnv struct {
	namesrv string
	timeout time.Duration
	getenv  func(string) string
}

// client returns an admin client for one command run; the caller closes it.
func (e *adminEnv) client() *admin.Client {
	addrs := e.namesrv
	if addrs == "" {
		addrs = e.getenv("NAMESRV_ADDR")
	}
	return admin.New(admin.Options{NamesrvAddrs: admin.ParseNamesrvAddrs(addrs), Timeout: e.timeout}, nil)
}

// NewCommand is mqadmin: Apache RocketMQ's admin tool's subcommands and flags, over the
// remoting protocol. A failure prints "Error: ..." (a server's refusal with its response code
// name and remark) on stderr and makes Execute return an error.
func NewCommand() *cobra.Command {
	env := &adminEnv{getenv: os.Getenv}
	cmd := &cobra.Command{
		Use:           "mqadmin",
		Short:         "Administer RocketMQ name servers and brokers",
		SilenceUsage:  true,
		SilenceErrors: false,
	}
	pf := cmd.PersistentFlags()
	pf.StringVarP(&env.namesrv, "namesrvAddr", "n", "",
		"name server address list, e.g. '192.168.0.1:9876;192.168.0.2:9876' (default $NAMESRV_ADDR)")
	pf.DurationVar(&env.timeout, "timeout", admin.DefaultTimeout, "timeout of each request")
	cmd.AddCommand(
		newClusterListCommand(env),
		newTopicListCommand(env),
		newTopicRouteCommand(env),
		newTopicStatusCommand(env),
		newUpdateTopicCommand(env),
		newDeleteTopicCommand(env),
		newConsumerProgressCommand(env),
		newConsumerConnectionCommand(env),
		newBrokerStatusCommand(env),
		newQueryMsgByKeyCommand(env),
		newQueryMsgByIDCommand(env),
		newQueryMsgByUniqueKeyCommand(env),
		newUpdateSubGroupCommand(env),
		newDeleteSubGroupCommand(env),
		newResetOffsetByTimeCommand(env),
		newGetBrokerConfigCommand(env),
		newSetConsumeModeCommand(env),
	)
	return cmd
}
