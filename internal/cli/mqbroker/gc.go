package mqbroker

import (
	"os"
	"runtime/debug"

	"go.uber.org/zap"
)

// brokerGCPercent is the broker's GOGC unless the environment sets one. The broker's heap is small
// (messages live in mapped files, not on the heap), so at Go's default of 100 the collector runs
// very often; 400 trades a few more megabytes of heap for a quarter of the GC work.
const brokerGCPercent = 400

// tuneGC applies brokerGCPercent when GOGC is not set.
func tuneGC(lg *zap.Logger) {
	if os.Getenv("GOGC") != "" {
		return
	}
	debug.SetGCPercent(brokerGCPercent)
	lg.Info("GC target set", zap.Int("GOGC", brokerGCPercent))
}
