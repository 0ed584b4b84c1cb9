// Command mqnamesrv runs a RocketMQ-compatible name server.
package main

import (
	"os"

	"github.com/rocketgo/rocketgo/internal/cli/mqnamesrv"
	"github.com/rocketgo/rocketgo/internal/version"
)

func main() {
	cmd := mqnamesrv.NewCommand()
	cmd.Version = version.Line("mqnamesrv")
	cmd.SetVersionTemplate("{{.Version}}\n")
	if err := cmd.Execute(); err != nil {
		os.Exit(1)
	}
}
