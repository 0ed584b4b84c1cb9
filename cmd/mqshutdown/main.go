// Command mqshutdown stops the running mqbroker or mqnamesrv processes (SIGTERM), as Apache
// RocketMQ's mqshutdown script: mqshutdown broker | namesrv.
package main

import (
	"fmt"
	"os"

	"github.com/rocketgo/rocketgo/internal/cli/mqshutdown"
	"github.com/rocketgo/rocketgo/internal/version"
)

func main() {
	cmd := mqshutdown.NewCommand()
	cmd.Version = version.Line("mqshutdown")
	cmd.SetVersionTemplate("{{.Version}}\n")
	if err := cmd.Execute(); err != nil {
		if mqshutdown.Reported(err) {
			os.Exit(1)
		}
		fmt.Fprintln(os.Stderr, "Error:", err)
		fmt.Fprintln(os.Stderr, "Usage: mqshutdown broker | namesrv")
		os.Exit(1)
	}
}
