package namesrv

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/rocketgo/rocketgo/internal/vfs/vfstest"
)

func TestKVValueAndStoreLimits(t *testing.T) {
	kv, err := NewKVConfig(KVOptions{Path: filepath.Join(t.TempDir(), "kv.json"), MaxValueBytes: 10, MaxTotalBytes: 40}, nil)
	require.NoError(t, err)
	require.NoError(t, kv.Put("ns", "k1", strings.Repeat("v", 10)))
	require.ErrorContains(t, kv.Put("ns", "k2", strings.Repeat("v", 11)), "value of 11 bytes, limit 10 (kvConfigMaxValueBytes)")
	require.NoError(t, kv.Put("ns", "k2", "0123456789")) // 2 × (2+2+10) = 28 bytes
	require.ErrorContains(t, kv.Put("ns", "k3", "0123456789"), "limit 40 (kvConfigMaxTotalBytes)")
	require.NoError(t, kv.Put("ns", "k1", "short"), "a smaller value always fits")
	require.NoError(t, kv.Delete("ns", "k2"))
	require.NoError(t, kv.Put("ns", "k3", "0123456789"), "a delete frees room")
}

// TestKVValuesAreNeverLoggedInFull: a put logs the value's length and a short prefix.
func TestKVValuesAreNeverLoggedInFull(t *testing.T) {
	core, logs := observer.New(zap.InfoLevel)
	kv, err := NewKVConfig(KVOptions{Path: filepath.Join(t.TempDir(), "kv.json"), MaxValueBytes: 200 << 10}, zap.New(core))
	require.NoError(t, err)
	value := strings.Repeat("s3cr3t", 100<<10/6)
	require.NoError(t, kv.Put("ns", "k", value))
	entries := logs.FilterMessage("kv config put").All()
	require.Len(t, entries, 1)
	fields := entries[0].ContextMap()
	require.Equal(t, int64(len(value)), fields["valueBytes"])
	require.Less(t, len(fmt.Sprint(fields)), 300, "the log line holds %d bytes", len(fmt.Sprint(fields)))
}

// TestConcurrentPutsShareWrites: n concurrent puts write the file far fewer than n times, and
// every put that returned is in the file.
func TestConcurrentPutsShareWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kv.json")
	kv, err := NewKVConfig(KVOptions{Path: path}, nil)
	require.NoError(t, err)
	const n = 200
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			require.NoError(t, kv.Put("ns", fmt.Sprintf("k%03d", i), "v"))
		}()
	}
	wg.Wait()
	t.Logf("%d concurrent puts, %d writes of the file", n, kv.Writes())
	require.Less(t, kv.Writes(), uint64(n/2))
	reloaded, err := NewKVConfig(KVOptions{Path: path}, nil)
	require.NoError(t, err)
	table, _ := reloaded.List("ns")
	require.Len(t, table, n)
}

// TestAnsweredPutsSurvivePowerLoss: whatever put has returned is in the file after a power loss
// (only what was synced survives), taken while other puts run.
func TestAnsweredPutsSurvivePowerLoss(t *testing.T) {
	fs := vfstest.New(t)
	kv, err := NewKVConfig(KVOptions{Path: fs.Path("namesrv", "kvConfig.json"), FS: fs}, nil)
	require.NoError(t, err)
	var mu sync.Mutex
	answered := map[string]bool{}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				key := fmt.Sprintf("g%d-%d", g, i)
				require.NoError(t, kv.Put("ns", key, "v"))
				mu.Lock()
				answered[key] = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	mu.Lock()
	want := len(answered)
	mu.Unlock()
	lost, err := fs.PowerLoss(filepath.Join(t.TempDir(), "after"))
	require.NoError(t, err)
	reloaded, err := NewKVConfig(KVOptions{Path: lost.Path("namesrv", "kvConfig.json"), FS: lost}, nil)
	require.NoError(t, err)
	table, _ := reloaded.List("ns")
	for key := range answered {
		require.Contains(t, table, key)
	}
	require.Len(t, table, want)
}
