package store_test

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/internal/store/storetest"
	"github.com/rocketgo/rocketgo/internal/vfs/vfstest"
)

// update rewrites the golden operation traces: go test ./internal/store -run Trace -update
var update = flag.Bool("update", false, "rewrite the golden operation traces under testdata/trace")

// indexName matches an IndexFile's name, which is the local time it was made.
var indexName = regexp.MustCompile(`index/\d{17}`)

// golden compares what the store did on fs since the last reset with
// testdata/trace/<name>.txt, and resets the trace.
func golden(t *testing.T, fs *vfstest.FS, name string) {
	t.Helper()
	trace := fs.Trace()
	for i, line := range trace {
		trace[i] = indexName.ReplaceAllString(line, "index/yyyyMMddHHmmssSSS")
	}
	vfstest.CompareGolden(t, filepath.Join("testdata", "trace", name+".txt"), trace, *update)
	fs.ResetTrace()
}

// traceOptions are small files, a fixed clock and no background goroutine:
// the store is opened and closed without Start, so every operation comes from
// the test's goroutine, in a fixed order.
func traceOptions(t *testing.T) (store.Options, *vfstest.FS) {
	o, fs := storetest.OnFS(t)
	o.Now = func() time.Time { return time.UnixMilli(1_700_000_000_000) }
	return o, fs
}

func openForTrace(t *testing.T, o store.Options) *store.Store {
	t.Helper()
	s, err := store.Open(o, zap.NewNop(), nil)
	require.NoError(t, err)
	return s
}

// The file operations of Open on an empty directory, of a Close after a few
// puts (the last dispatch creates the ConsumeQueues and the IndexFile, the
// final flush syncs everything and writes the checkpoint), and of Open after
// that clean Close, compared with golden traces.
func TestTraceOpenCloseReopen(t *testing.T) {
	o, fs := traceOptions(t)
	s := openForTrace(t, o)
	golden(t, fs, "open-fresh")

	for i := range 3 {
		mustPut(t, s, storetest.Msg("T", int32(i%2), body(i, 100), map[string]string{"KEYS": "k"}))
	}
	fs.ResetTrace() // the puts write through the mapping: no file operation but the segment's creation
	require.NoError(t, s.Close())
	golden(t, fs, "close")

	s = openForTrace(t, o)
	golden(t, fs, "open-reopen")
	require.EqualValues(t, 2, s.MaxOffsetInQueue("T", 0))
	require.NoError(t, s.Close())
}

// The file operations of one checkpoint write: temp file, fsync, rename,
// directory fsync.
func TestTraceCheckpointWrite(t *testing.T) {
	fs := vfstest.New(t)
	cp := store.Checkpoint{PhysicMsgTimestamp: 1, LogicsMsgTimestamp: 2, FlushedOffset: 4096, DispatchedOffset: 4096}
	require.NoError(t, store.WriteCheckpoint(fs, fs.Path("checkpoint"), cp))
	golden(t, fs, "checkpoint")
	b, err := os.ReadFile(fs.Path("checkpoint"))
	require.NoError(t, err)
	got, err := store.DecodeCheckpoint(b)
	require.NoError(t, err)
	require.Equal(t, cp.FlushedOffset, got.FlushedOffset)
}
