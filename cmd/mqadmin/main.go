// Command mqadmin administers RocketMQ name servers and brokers, with Apache's subcommand names
// and flags (clusterList, topicStatus, consumerProgress, queryMsgById, ...).
package main

import (
	"os"

	"github.com/rocketgo/rocketgo/internal/cli/mqadmin"
)

func main() {
	if err := mqadmin.NewCommand().Execute(); err != nil {
		os.Exit(1)
	}
}
