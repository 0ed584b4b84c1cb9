// Command mqnamesrv runs a RocketMQ-compatible name server.
package main

import (
	"os"

	"github.com/rocketgo/rocketgo/internal/cli"
)

func main() {
	if err := cli.NewNamesrvCommand().Execute(); err != nil {
		os.Exit(1)
	}
}
