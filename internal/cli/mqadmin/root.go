// Package mqadmin is the mqadmin command: Apache RocketMQ's admin tool's subcommands and flags,
// each a small file that calls internal/admin and prints as the Java tool does.
package mqadmin

import (
	"errors"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/rocketgo/rocketgo/internal/admin"
	"github.com/rocketgo/rocketgo/internal/config"
)

// adminEnv is what every mqadmin subcommand shares: the name server list (-n, else
// NAMESRV_ADDR), the request timeout, the ACL account, and where files are written.
type adminEnv struct {
	namesrv string
	timeout time.Duration
	// accessKey and secretKey come from --accessKey/--secretKey, else from
	// $ROCKETMQ_HOME/conf/tools.yml (resolveCredentials).
	accessKey, secretKey string
	getenv               func(string) string
	// tmpDir stands for Java's /tmp/rocketmq (message bodies, exports); workDir for the working
	// directory consumerStatus writes into. Tests point them at temporary directories.
	tmpDir, workDir string
	now             func() time.Time
}

// defaultEnv is the environment of a real run.
func defaultEnv() *adminEnv {
	return &adminEnv{getenv: os.Getenv, tmpDir: "/tmp/rocketmq", workDir: ".", now: time.Now}
}

// client returns an admin client for one command run; the caller closes it.
func (e *adminEnv) client() *admin.Client {
	addrs := e.namesrv
	if addrs == "" {
		addrs = e.getenv("NAMESRV_ADDR")
	}
	return admin.New(admin.Options{NamesrvAddrs: admin.ParseNamesrvAddrs(addrs), Timeout: e.timeout,
		AccessKey: e.accessKey, SecretKey: e.secretKey}, nil)
}

// resolveCredentials settles the ACL account: both flags, else tools.yml under ROCKETMQ_HOME as
// Apache's mqadmin reads it (MQAdminStartup → AclUtils.getAclRPCHook). Either key blank there
// means unsigned requests, as in Java; one flag without the other is an error.
func (e *adminEnv) resolveCredentials() error {
	if e.accessKey != "" || e.secretKey != "" {
		if e.accessKey == "" || e.secretKey == "" {
			return errors.New("--accessKey and --secretKey go together")
		}
		return nil
	}
	path := config.ToolsPath(e.getenv)
	if path == "" {
		return nil
	}
	tools, err := config.LoadTools(path)
	if err != nil {
		return err
	}
	if tools.Signs() {
		e.accessKey, e.secretKey = tools.AccessKey, tools.SecretKey
	}
	return nil
}

// NewCommand is mqadmin: Apache RocketMQ's admin tool's subcommands and flags, over the
// remoting protocol. A failure prints "Error: ..." (a server's refusal with its response code
// name and remark) on stderr and makes Execute return an error.
func NewCommand() *cobra.Command { return newRootCommand(defaultEnv()) }

func newRootCommand(env *adminEnv) *cobra.Command {
	cmd := &cobra.Command{
		Use:               "mqadmin",
		Short:             "Administer RocketMQ name servers and brokers",
		SilenceUsage:      true,
		SilenceErrors:     false,
		PersistentPreRunE: func(*cobra.Command, []string) error { return env.resolveCredentials() },
	}
	pf := cmd.PersistentFlags()
	pf.StringVarP(&env.namesrv, "namesrvAddr", "n", "",
		"name server address list, e.g. '192.168.0.1:9876;192.168.0.2:9876' (default $NAMESRV_ADDR)")
	pf.DurationVar(&env.timeout, "timeout", admin.DefaultTimeout, "timeout of each request")
	pf.StringVar(&env.accessKey, "accessKey", "", "ACL access key to sign requests with (default: accessKey of $ROCKETMQ_HOME/conf/tools.yml)")
	pf.StringVar(&env.secretKey, "secretKey", "", "ACL secret key of --accessKey (default: secretKey of $ROCKETMQ_HOME/conf/tools.yml)")
	cmd.AddCommand(commands(env)...)
	return cmd
}

// commands lists every subcommand.
func commands(env *adminEnv) []*cobra.Command {
	return []*cobra.Command{
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
		newWipeWritePermCommand(env),
		newAddWritePermCommand(env),
		newGetNamesrvConfigCommand(env),
		newUpdateNamesrvConfigCommand(env),
		newUpdateKvConfigCommand(env),
		newDeleteKvConfigCommand(env),
		newUpdateOrderConfCommand(env),
		newUpdateBrokerConfigCommand(env),
		newUpdateTopicPermCommand(env),
		newTopicClusterListCommand(env),
		newExportMetadataCommand(env),
		newExportConfigsCommand(env),
		newPrintMsgCommand(env),
		newPrintMsgByQueueCommand(env),
		newQueryMsgByOffsetCommand(env),
		newConsumeMessageCommand(env),
		newSendMessageCommand(env),
		newCloneGroupOffsetCommand(env),
		newSkipAccumulatedMessageCommand(env),
		newConsumerStatusCommand(env),
		newProducerConnectionCommand(env),
		newStatsAllCommand(env),
		newBrokerConsumeStatsCommand(env),
	}
}
