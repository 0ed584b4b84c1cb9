// Command mqbench is a load generator and checker for RocketMQ brokers:
// mqbench produce|consume|both. See internal/bench.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/rocketgo/rocketgo/internal/bench"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := bench.NewCommand().ExecuteContext(ctx)
	stop()
	if err != nil {
		os.Exit(1)
	}
}
