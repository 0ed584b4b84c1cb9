// Command mqbroker runs a RocketMQ-compatible broker.
package main

import (
	"os"

	"github.com/rocketgo/rocketgo/internal/cli/mqbroker"
	"github.com/rocketgo/rocketgo/internal/version"
)

func main() {
	cmd := mqbroker.NewCommand()
	cmd.Version = version.Line("mqbroker")
	cmd.SetVersionTemplate("{{.Version}}\n")
	if err := cmd.Execute(); err != nil {
		os.Exit(1)
	}
}
