package subscription

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

func testOptions(t *testing.T) Options {
	var mu sync.Mutex
	now := time.UnixMilli(1700000000000)
	return Options{
		StorePathRootDir:            t.TempDir(),
		AutoCreateSubscriptionGroup: true,
		Now: func() time.Time {
			mu.Lock()
			defer mu.Unlock()
			now = now.Add(time.Millisecond)
			return now
		},
	}
}

func newManager(t *testing.T, o Options) *Manager {
	t.Helper()
	m, err := New(o, nil)
	require.NoError(t, err)
	return m
}

func TestBuiltinGroups(t *testing.T) {
	m := newManager(t, testOptions(t))
	for _, g := range []string{"TOOLS_CONSUMER", "FILTERSRV_CONSUMER", "SELF_TEST_C_GROUP", "CID_ONS-HTTP-PROXY",
		"CID_ONSAPI_PULL", "CID_ONSAPI_PERMISSION", "CID_ONSAPI_OWNER", "CID_RMQ_SYS_TRANS"} {
		cfg, ok := m.Get(g)
		require.True(t, ok, g)
		require.Equal(t, body.NewSubscriptionGroupConfig(g), cfg)
	}
	require.Equal(t, int64(0), m.DataVersion().Counter)
}

func TestFindOrCreate(t *testing.T) {
	o := testOptions(t)
	m := newManager(t, o)
	cfg, ok := m.FindOrCreate("g1")
	require.True(t, ok)
	require.Equal(t, body.NewSubscriptionGroupConfig("g1"), cfg)
	require.Equal(t, int64(1), m.DataVersion().Counter)
	_, ok = m.FindOrCreate("g1")
	require.True(t, ok)
	require.Equal(t, int64(1), m.DataVersion().Counter, "found, not created again")
	_, ok = m.FindOrCreate("")
	require.False(t, ok)

	o2 := testOptions(t)
	o2.AutoCreateSubscriptionGroup = false
	m2 := newManager(t, o2)
	_, ok = m2.FindOrCreate("g1")
	require.False(t, ok)
	_, ok = m2.FindOrCreate("CID_RMQ_SYS_OTHER")
	require.True(t, ok, "system groups are always created")

	reloaded := newManager(t, o)
	_, ok = reloaded.Get("g1")
	require.True(t, ok, "auto-created group persisted")
	require.Equal(t, m.DataVersion(), reloaded.DataVersion())
}

func TestPutDeleteDisable(t *testing.T) {
	o := testOptions(t)
	m := newManager(t, o)
	cfg := body.NewSubscriptionGroupConfig("g")
	cfg.RetryMaxTimes = 3
	cfg.ConsumeBroadcastEnable = false
	require.NoError(t, m.Put(cfg))
	require.ErrorIs(t, m.Put(body.SubscriptionGroupConfig{}), ErrEmptyGroupName)
	got, ok := newManager(t, o).Get("g")
	require.True(t, ok)
	require.Equal(t, cfg, got)

	m.DisableConsume("g")
	got, _ = m.Get("g")
	require.False(t, got.ConsumeEnable)
	require.NoError(t, m.Persist())
	got, _ = newManager(t, o).Get("g")
	require.False(t, got.ConsumeEnable)

	existed, err := m.Delete("g")
	require.NoError(t, err)
	require.True(t, existed)
	existed, err = m.Delete("g")
	require.NoError(t, err)
	require.False(t, existed)
	_, ok = newManager(t, o).Get("g")
	require.False(t, ok)
	require.Contains(t, m.Groups(), "TOOLS_CONSUMER")
	require.NotContains(t, m.Groups(), "g")
}

func TestLoadJavaFileWithBackupFallback(t *testing.T) {
	o := testOptions(t)
	path := ConfigPath(o.StorePathRootDir)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	java := `{"dataVersion":{"counter":9,"timestamp":1600000000000},"subscriptionGroupTable":{` +
		`"g1":{"brokerId":0,"consumeBroadcastEnable":true,"consumeEnable":true,"consumeFromMinEnable":true,` +
		`"groupName":"g1","notifyConsumerIdsChangedEnable":true,"retryMaxTimes":5,"retryQueueNums":1,"whichBrokerWhenConsumeSlowly":1}}}`
	require.NoError(t, os.WriteFile(path+".bak", []byte(java), 0o644))
	m := newManager(t, o)
	got, ok := m.Get("g1")
	require.True(t, ok, "main file missing: the backup is used")
	require.Equal(t, 5, got.RetryMaxTimes)
	require.Equal(t, 15, got.ConsumeTimeoutMinute, "missing 5.x fields take defaults")
	require.Equal(t, body.DataVersion{Counter: 9, Timestamp: 1600000000000}, m.DataVersion())
}

func TestWrapperIsACopy(t *testing.T) {
	m := newManager(t, testOptions(t))
	w := m.Wrapper()
	delete(w.SubscriptionGroupTable, "TOOLS_CONSUMER")
	_, ok := m.Get("TOOLS_CONSUMER")
	require.True(t, ok)
}

// TestFindOrCreateManyWritesOnce: a heartbeat's new groups are created in one change and one
// write of the file, and are in it when the call returns; names that are not group names are
// never created.
func TestFindOrCreateManyWritesOnce(t *testing.T) {
	o := testOptions(t)
	m := newManager(t, o)
	var groups []string
	for i := range 300 {
		groups = append(groups, "G"+strings.Repeat("x", 200)+strconv.Itoa(i))
	}
	bad := []string{strings.Repeat("g", 256), "../g", "", "a b"}
	require.ElementsMatch(t, append(append([]string(nil), groups...), bad...), m.Missing(append(groups, bad...)))
	found, err := m.FindOrCreateMany(7, append(groups, bad...))
	require.NoError(t, err)
	require.Len(t, found, 300)
	require.Equal(t, uint64(1), m.Writes(), "one write for 300 new groups")
	require.Equal(t, int64(1), m.DataVersion().Counter)
	for _, b := range bad {
		_, ok := m.FindOrCreate(b)
		require.False(t, ok, "%q is not a group name", b)
	}
	require.Empty(t, m.Missing(groups))

	back := newManager(t, o) // what a restart (or kill -9) finds
	for _, g := range groups {
		_, ok := back.Get(g)
		require.True(t, ok)
	}
	require.ErrorContains(t, m.Put(body.NewSubscriptionGroupConfig("../../etc")), "contains illegal characters")
}

// TestFindOrCreateAdmits: groups a connection would create beyond what Admit allows are refused,
// all of them, and nothing is written.
func TestFindOrCreateAdmits(t *testing.T) {
	o := testOptions(t)
	allowed := map[uint64]int{1: 2}
	o.Admit = func(owner uint64, n int) error {
		if n > allowed[owner] {
			return errors.New("too many")
		}
		allowed[owner] -= n
		return nil
	}
	m := newManager(t, o)
	_, err := m.FindOrCreateMany(1, []string{"a", "b", "c"})
	var qe *QuotaError
	require.ErrorAs(t, err, &qe)
	require.Equal(t, uint64(0), m.Writes())
	require.Len(t, m.Missing([]string{"a", "b", "c"}), 3)
	found, err := m.FindOrCreateMany(1, []string{"a", "b", "a", "TOOLS_CONSUMER"})
	require.NoError(t, err)
	require.Len(t, found, 3, "a repeated name is one group; an existing one costs nothing")
	_, ok, refused := m.FindOrCreateFor(1, "c")
	require.False(t, ok)
	require.EqualError(t, refused, "too many")
	_, ok, refused = m.FindOrCreateFor(1, "a")
	require.True(t, ok)
	require.NoError(t, refused)
	_, ok = m.FindOrCreate("c")
	require.False(t, ok, "owner 0 is asked too (the Admit of the broker's wiring lets it through)")
}

// TestPutAllWritesOnce: UPDATE_AND_CREATE_SUBSCRIPTIONGROUP_LIST's groups are written with one
// write of the file; a bad name in the list changes nothing.
func TestPutAllWritesOnce(t *testing.T) {
	o := testOptions(t)
	m := newManager(t, o)
	before := m.Writes()
	var list []body.SubscriptionGroupConfig
	for i := range 500 {
		list = append(list, body.NewSubscriptionGroupConfig("LG"+strconv.Itoa(i)))
	}
	require.NoError(t, m.PutAll(list))
	require.Equal(t, before+1, m.Writes(), "one write for 500 groups")
	_, ok := newManager(t, o).Get("LG499")
	require.True(t, ok, "written")
	require.Error(t, m.PutAll([]body.SubscriptionGroupConfig{body.NewSubscriptionGroupConfig("Fine"), body.NewSubscriptionGroupConfig("a b")}))
	_, ok = m.Get("Fine")
	require.False(t, ok)
	require.Equal(t, before+1, m.Writes())
}
