// Command mqnamesrv runs a RocketMQ-compatible name server.
package main

import (
	"os"

	"github.com/rocketgo/rocketgo/internal/cli/mqnamesrv"
)

func main() {
	if err := mqnamesrv.NewCommand().Execute(); err != nil {
		os.Exit(1)
	}
}
