package commitlog

import (
	"fmt"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/rocketgo/rocketgo/internal/vfs/vfstest"
)

// SYNC_FLUSH records reach the file through the descriptor when a sync writes what is pending:
// one pwrite when they lie in one page, two when they cross a page boundary (the first totalSize
// goes last), and records whose second write never happened (a process killed half-way through
// a pwrite leaves the same bytes) are no records to recovery: the log ends where they began.
func TestSyncPutsAreWrittenSealedLast(t *testing.T) {
	fs, o, c := openSyncUnstarted(t)
	c.Start()

	fs.ResetTrace()
	small := c.Append(msg("T", 0, make([]byte, 100), ""))
	require.Equal(t, PutOK, small.Status, "%v", small.Err)
	require.Equal(t, 1, fs.Count(vfstest.OpWriteAt, ""), "a put within one page is one pwrite")

	fs.ResetTrace()
	fs.Inject(vfstest.Rule{Kind: vfstest.OpWriteAt, Nth: 2, Err: syscall.EIO})
	big := c.Append(msg("T", 0, make([]byte, 5000), ""))
	require.Equal(t, ServiceNotAvailable, big.Status, "the failed seal fails the sync the put waits for")
	require.Equal(t, 2, fs.Count(vfstest.OpWriteAt, ""), "a put across pages: the records, then the first totalSize")
	require.Error(t, c.Err(), "the failed write poisoned the log")
	_ = c.Close()

	o.FS = vfstest.New(t) // a double over the same files, without the rule
	o.Dir = fs.Root()
	again, err := Open(o, zaptest.NewLogger(t))
	require.NoError(t, err)
	st, err := again.Recover(false, 0)
	require.NoError(t, err)
	require.Equal(t, 1, st.Records)
	require.Equal(t, small.WroteOffset+int64(small.WroteBytes), st.End)
	end := small.WroteOffset + int64(small.WroteBytes)
	require.Equal(t, fmt.Sprintf("unfinished record (totalSize 0) at %d", end), st.Stopped,
		"the unsealed record is where the log ends")
	require.Equal(t, st.End, again.MaxOffset())
	require.NoError(t, again.Close())
}

// Puts that do not wait for their sync (WAIT false) stay pending until a sync or the shutdown
// writes them, all in one write, and nothing reads them before: a reopened log has every one.
func TestPendingPutsAreWrittenTogether(t *testing.T) {
	fs, o, c := openSyncUnstarted(t) // not started: no group commit runs

	fs.ResetTrace()
	var last Result
	for range 5 {
		last = c.Append(msg("T", 0, make([]byte, 10), "WAIT\x01false\x02"))
		require.Equal(t, PutOK, last.Status, "%v", last.Err)
	}
	require.Zero(t, fs.Count(vfstest.OpWriteAt, ""), "nothing written before a sync")
	require.Equal(t, last.WroteOffset+int64(last.WroteBytes), c.MaxOffset(), "pending puts count in MaxOffset")
	require.Zero(t, c.ReadableOffset())
	require.NoError(t, c.Close())
	require.Equal(t, 1, fs.Count(vfstest.OpWriteAt, ""), "the shutdown writes the five puts at once")

	again := open(t, o)
	require.Equal(t, last.WroteOffset+int64(last.WroteBytes), again.MaxOffset())
	m, err := again.Lookup(last.WroteOffset)
	require.NoError(t, err)
	require.Equal(t, "T", m.Topic)
}

// openSyncUnstarted opens and recovers a SYNC_FLUSH log on a vfstest double without starting
// its group commit.
func openSyncUnstarted(t *testing.T) (*vfstest.FS, Options, *CommitLog) {
	t.Helper()
	fs := vfstest.New(t)
	o := testOpts(fs.Root())
	o.FlushType, o.FS = SyncFlush, fs
	c, err := Open(o, zaptest.NewLogger(t))
	require.NoError(t, err)
	_, err = c.Recover(true, 0)
	require.NoError(t, err)
	return fs, o, c
}
