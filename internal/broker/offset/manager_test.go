package offset

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func newManager(t *testing.T, root string) *Manager {
	t.Helper()
	m, err := New(Options{StorePathRootDir: root, FlushInterval: time.Hour}, nil)
	require.NoError(t, err)
	return m
}

func TestCommitQuery(t *testing.T) {
	m := newManager(t, t.TempDir())
	_, ok := m.Query("g", "t", 0)
	require.False(t, ok)
	m.Commit("g", "t", 0, 12)
	m.Commit("g", "t", 1, 7)
	m.Commit("g2", "t", 0, 3)
	m.Commit("g", "t2", 0, 1)
	off, ok := m.Query("g", "t", 0)
	require.True(t, ok)
	require.Equal(t, int64(12), off)
	m.Commit("g", "t", 0, 5) // resets may move an offset back
	off, _ = m.Query("g", "t", 0)
	require.Equal(t, int64(5), off)
	require.Equal(t, map[int32]int64{0: 5, 1: 7}, m.QueryAll("g", "t"))
	require.Nil(t, m.QueryAll("nobody", "t"))
	require.Equal(t, []string{"t", "t2"}, m.TopicsOfGroup("g"))
	require.Equal(t, []string{"g", "g2"}, m.GroupsOfTopic("t"))
	require.Equal(t, map[int32]int64{0: 3, 1: 7}, m.MinOffsetInAllGroups("t", nil))
	require.Equal(t, map[int32]int64{0: 5, 1: 7}, m.MinOffsetInAllGroups("t", map[string]bool{"g2": true}))

	m.CloneOffset("g", "g3", "t")
	require.Equal(t, map[int32]int64{0: 5, 1: 7}, m.QueryAll("g3", "t"))
	require.True(t, m.Remove("t", "g3"))
	require.False(t, m.Remove("t", "g3"))
	require.Equal(t, 2, m.RemoveGroup("g"))
	require.Equal(t, []string{"g2"}, m.GroupsOfTopic("t"))
	require.Equal(t, 1, m.RemoveTopic("t"))
	require.Empty(t, m.Wrapper().OffsetTable)
}

func TestOffsetsSurviveReload(t *testing.T) {
	root := t.TempDir()
	m := newManager(t, root)
	m.Commit("g", "t", 0, 12)
	m.Commit("g", "%RETRY%g", 0, 2)
	require.NoError(t, m.Close())
	require.NoError(t, m.Close(), "Close is idempotent")

	m2 := newManager(t, root)
	defer m2.Close()
	off, ok := m2.Query("g", "t", 0)
	require.True(t, ok)
	require.Equal(t, int64(12), off)
	off, ok = m2.Query("g", "%RETRY%g", 0)
	require.True(t, ok)
	require.Equal(t, int64(2), off)
}

func TestLoadJavaUnquotedKeysAndBackup(t *testing.T) {
	root := t.TempDir()
	path := ConfigPath(root)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	java := "{\n\t\"offsetTable\":{\n\t\t\"TopicTest@please_rename_unique_group_name_4\":{0:250,1:249,2:251,3:250},\n\t\t\"%RETRY%g@g\":{0:0}\n\t}\n}"
	require.NoError(t, os.WriteFile(path, []byte(java), 0o644))
	m := newManager(t, root)
	require.Equal(t, map[int32]int64{0: 250, 1: 249, 2: 251, 3: 250}, m.QueryAll("please_rename_unique_group_name_4", "TopicTest"))

	// A persist keeps the Java file as the backup; a torn main file then falls back to it.
	m.Commit("g", "t", 0, 1)
	require.NoError(t, m.Close())
	bak, err := os.ReadFile(path + ".bak")
	require.NoError(t, err)
	require.Equal(t, java, string(bak))
	require.NoError(t, os.WriteFile(path, []byte(`{"offsetTable":{"t@g":{0:`), 0o644))
	m2 := newManager(t, root)
	defer m2.Close()
	off, ok := m2.Query("please_rename_unique_group_name_4", "TopicTest", 2)
	require.True(t, ok)
	require.Equal(t, int64(251), off)
}

func TestCorruptFileWithoutBackupRefusesToLoad(t *testing.T) {
	root := t.TempDir()
	path := ConfigPath(root)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte("{garbage"), 0o644))
	_, err := New(Options{StorePathRootDir: root}, nil)
	require.Error(t, err)
}

func TestPersistSkipsUnchangedTable(t *testing.T) {
	root := t.TempDir()
	m := newManager(t, root)
	require.NoError(t, m.Persist())
	_, err := os.Stat(ConfigPath(root))
	require.True(t, os.IsNotExist(err), "nothing committed, nothing written")
	m.Commit("g", "t", 0, 1)
	require.NoError(t, m.Persist())
	info1, err := os.Stat(ConfigPath(root))
	require.NoError(t, err)
	require.NoError(t, m.Persist())
	_, err = os.Stat(ConfigPath(root) + ".bak")
	require.True(t, os.IsNotExist(err), "an unchanged table is not rewritten")
	info2, err := os.Stat(ConfigPath(root))
	require.NoError(t, err)
	require.Equal(t, info1.ModTime(), info2.ModTime())
	require.NoError(t, m.Close())
}

func TestFlushLoopPersists(t *testing.T) {
	root := t.TempDir()
	m, err := New(Options{StorePathRootDir: root, FlushInterval: 10 * time.Millisecond}, nil)
	require.NoError(t, err)
	m.Start()
	m.Start()
	m.Commit("g", "t", 3, 42)
	require.Eventually(t, func() bool {
		w, err := New(Options{StorePathRootDir: root}, nil)
		if err != nil {
			return false
		}
		off, ok := w.Query("g", "t", 3)
		return ok && off == 42
	}, 5*time.Second, 10*time.Millisecond)
	require.NoError(t, m.Close())
}

func TestCloseWithoutStart(t *testing.T) {
	root := t.TempDir()
	m := newManager(t, root)
	m.Commit("g", "t", 0, 9)
	require.NoError(t, m.Close())
	m.Start() // after Close: must not start a goroutine (goleak checks)
	off, ok := newManager(t, root).Query("g", "t", 0)
	require.True(t, ok)
	require.Equal(t, int64(9), off)
}

func TestClamp(t *testing.T) {
	m := newManager(t, t.TempDir())
	defer m.Close()
	m.Commit("g1", "t", 0, 150) // beyond the recovered end
	m.Commit("g1", "t", 1, 5)   // below the first retained entry
	m.Commit("g1", "t", 2, 60)  // inside
	m.Commit("g2", "t", 0, 90)  // inside
	m.Commit("g1", "gone", 0, 7)
	bounds := map[int32][2]int64{0: {0, 100}, 1: {10, 20}, 2: {0, 60}}
	n := m.Clamp(func(topic string, q int32) (int64, int64, bool) {
		b, ok := bounds[q]
		return b[0], b[1], ok && topic == "t"
	})
	require.Equal(t, 2, n)
	require.Equal(t, map[int32]int64{0: 100, 1: 10, 2: 60}, m.QueryAll("g1", "t"))
	require.Equal(t, map[int32]int64{0: 90}, m.QueryAll("g2", "t"))
	require.Equal(t, map[int32]int64{0: 7}, m.QueryAll("g1", "gone"), "unknown queues are left alone")

	require.Equal(t, 1, m.ClampTo("gone", 0, 0, 3))
	off, _ := m.Query("g1", "gone", 0)
	require.Equal(t, int64(3), off)
	require.Equal(t, 0, m.ClampTo("gone", 0, 0, 3))
	require.Equal(t, 2, m.ClampTo("t", 0, 0, 0), "both groups' offsets of queue 0")
	off, _ = m.Query("g2", "t", 0)
	require.Equal(t, int64(0), off, "a queue recovered empty clamps to its end, 0")
	off, _ = m.Query("g1", "t", 2)
	require.Equal(t, int64(60), off, "other queues untouched")
}

func TestReplaceAllAndKeys(t *testing.T) {
	m := newManager(t, t.TempDir())
	defer m.Close()
	m.Commit("g", "t", 0, 1)
	m.ReplaceAll(map[string]map[int32]int64{"t2@g2": {1: 5}})
	_, ok := m.Query("g", "t", 0)
	require.False(t, ok)
	off, ok := m.Query("g2", "t2", 1)
	require.True(t, ok)
	require.Equal(t, int64(5), off)
	topic, group, ok := SplitKey(Key("%RETRY%g", "g"))
	require.True(t, ok)
	require.Equal(t, "%RETRY%g", topic)
	require.Equal(t, "g", group)
}
