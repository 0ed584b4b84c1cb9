// Command mqbench is a load generator and checker for RocketMQ brokers:
// mqbench produce|consume|both. See tools/mqbench.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/rocketgo/rocketgo/internal/version"
	"github.com/rocketgo/rocketgo/tools/mqbench"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	cmd := mqbench.NewCommand()
	cmd.Version = version.Line("mqbench")
	cmd.SetVersionTemplate("{{.Version}}\n")
	err := cmd.ExecuteContext(ctx)
	stop()
	if err != nil {
		os.Exit(1)
	}
}
