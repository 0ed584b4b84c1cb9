package crash

import (
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/rlog"
)

func TestMain(m *testing.M) {
	rlog.SetLogLevel("error")
	os.Exit(m.Run())
}

// envInt reads a positive integer from the environment, or returns def when the variable is unset.
func envInt(t testing.TB, name string, def int64) int64 {
	t.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 0 {
		t.Fatalf("%s=%q: want a non-negative integer", name, s)
	}
	return v
}

// cycles is the number of kill -9 cycles of a crash run: CRASH_CYCLES, default 3.
func cycles(t testing.TB) int {
	n := envInt(t, "CRASH_CYCLES", 3)
	if n < 1 {
		t.Fatalf("CRASH_CYCLES must be at least 1")
	}
	return int(n)
}

// seed is CRASH_SEED, or the time when it is unset.
func seed(t testing.TB) int64 {
	return envInt(t, "CRASH_SEED", time.Now().UnixNano()&(1<<62-1))
}
