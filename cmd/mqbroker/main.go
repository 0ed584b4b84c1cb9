// Command mqbroker runs a RocketMQ-compatible broker.
package main

import (
	"os"

	"github.com/rocketgo/rocketgo/internal/cli"
)

func main() {
	if err := cli.NewBrokerCommand().Execute(); err != nil {
		os.Exit(1)
	}
}
