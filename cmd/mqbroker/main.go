// Command mqbroker runs a RocketMQ-compatible broker.
package main

import (
	"os"

	"github.com/rocketgo/rocketgo/internal/cli/mqbroker"
)

func main() {
	if err := mqbroker.NewCommand().Execute(); err != nil {
		os.Exit(1)
	}
}
