// Command mqadmin administers RocketMQ name servers and brokers, with Apache's subcommand names
// and flags (clusterList, topicStatus, consumerProgress, queryMsgById, ...).
package main

import (
	"os"

	"github.com/rocketgo/rocketgo/internal/cli/mqadmin"
	"github.com/rocketgo/rocketgo/internal/version"
)

func main() {
	cmd := mqadmin.NewCommand()
	cmd.Version = version.Line("mqadmin")
	cmd.SetVersionTemplate("{{.Version}}\n")
	if err := cmd.Execute(); err != nil {
		os.Exit(1)
	}
}
