package configfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// table is a stand-in for a manager: a map under a lock, its changes numbered.
type table struct {
	mu    sync.Mutex
	items map[string]int
	seq   uint64
	fail  error
}

func (tb *table) add(k string) uint64 {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	tb.items[k] = len(tb.items)
	tb.seq++
	return tb.seq
}

func (tb *table) snapshot() ([]byte, uint64, error) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if tb.fail != nil {
		return nil, 0, tb.fail
	}
	data, err := json.Marshal(tb.items)
	return data, tb.seq, err
}

func TestSyncerWritesChangesTogether(t *testing.T) {
	path := filepath.Join(t.TempDir(), "subscriptionGroup.json")
	tb := &table{items: map[string]int{}}
	s := NewSyncer(NewPersister(path), tb.snapshot)

	// Many changes, one sync: one write holding them all.
	var last uint64
	for _, k := range []string{"a", "b", "c"} {
		last = tb.add(k)
	}
	require.NoError(t, s.Sync(last))
	require.Equal(t, uint64(1), s.Writes())
	require.NoError(t, s.Sync(2), "an earlier change is durable already")
	require.Equal(t, uint64(1), s.Writes())
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.JSONEq(t, `{"a":0,"b":1,"c":2}`, string(data))

	// Concurrent changes share writes: far fewer writes than changes, every change durable.
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			require.NoError(t, s.Sync(tb.add(fmt.Sprint("k", i))))
		}()
	}
	wg.Wait()
	require.Less(t, s.Writes(), uint64(1+64))
	data, err = os.ReadFile(path)
	require.NoError(t, err)
	var got map[string]int
	require.NoError(t, json.Unmarshal(data, &got))
	require.Len(t, got, 3+64)
}

func TestSyncerFailureIsTheWritersAndRetried(t *testing.T) {
	tb := &table{items: map[string]int{}}
	s := NewSyncer(NewPersister(filepath.Join(t.TempDir(), "topics.json")), tb.snapshot)
	seq := tb.add("a")
	tb.fail = errors.New("disk full")
	require.ErrorContains(t, s.Sync(seq), "disk full")
	tb.fail = nil
	require.NoError(t, s.Sync(seq), "the change is written by the next sync")
	require.Equal(t, uint64(1), s.Writes())
}
