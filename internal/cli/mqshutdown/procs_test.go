package mqshutdown

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestConfigArg(t *testing.T) {
	for args, want := range map[string]string{
		"mqbroker -c a.conf":                  "a.conf",
		"mqbroker -n x:1 -c=a.conf":           "a.conf",
		"mqbroker -ca.conf":                   "a.conf",
		"mqbroker --configFile a.conf":        "a.conf",
		"mqbroker --configFile=/etc/b.conf":   "/etc/b.conf",
		"mqbroker -n 127.0.0.1:9876":          "",
		"mqbroker -c":                         "",
		"mqnamesrv --log-level debug -c n.cf": "n.cf",
	} {
		require.Equal(t, want, configArg(strings.Fields(args)), args)
	}
}

func TestIsZombie(t *testing.T) {
	require.True(t, isZombie([]byte("123 (mq broker) Z 1 2 3")))
	require.False(t, isZombie([]byte("123 (mqbroker) S 1 2 3")))
	require.False(t, isZombie([]byte("123 (odd) name) R 1")))
	require.False(t, isZombie([]byte("garbage")))
}

// fakeProc is a /proc with one directory per process: cmdline, and exe and cwd links.
type fakeProc struct {
	t    *testing.T
	root string
}

func (p fakeProc) add(pid int, exe, cwd string, args ...string) {
	dir := filepath.Join(p.root, strconv.Itoa(pid))
	require.NoError(p.t, os.MkdirAll(dir, 0o755))
	require.NoError(p.t, os.WriteFile(filepath.Join(dir, "cmdline"), []byte(strings.Join(args, "\x00")+"\x00"), 0o644))
	if exe != "" {
		require.NoError(p.t, os.Symlink(exe, filepath.Join(dir, "exe")))
	}
	if cwd != "" {
		require.NoError(p.t, os.Symlink(cwd, filepath.Join(dir, "cwd")))
	}
}

// TestFindProcesses: processes are matched by their executable's name (argv[0]'s when the
// executable cannot be read, " (deleted)" ignored), and with -c by their configuration file,
// however it was spelled.
func TestFindProcesses(t *testing.T) {
	confDir := t.TempDir()
	confA, confB := filepath.Join(confDir, "a.conf"), filepath.Join(confDir, "b.conf")
	require.NoError(t, os.WriteFile(confA, nil, 0o644))
	require.NoError(t, os.WriteFile(confB, nil, 0o644))
	p := fakeProc{t: t, root: t.TempDir()}
	p.add(10, "/opt/rocketgo/bin/mqbroker", confDir, "bin/mqbroker", "-c", "a.conf")
	p.add(11, "/opt/rocketgo/bin/mqbroker (deleted)", "/", "mqbroker", "--configFile="+confB)
	p.add(12, "", "", "/usr/local/bin/mqbroker", "-c", confA) // another user's: exe unreadable
	p.add(13, "/usr/bin/vim", "/", "vim", "mqbroker")
	p.add(14, "/opt/rocketgo/bin/mqnamesrv", "/", "mqnamesrv", "-c", confA)
	p.add(15, "/opt/rocketgo/bin/mqbroker", "", "mqbroker", "-c", "a.conf") // relative, cwd unknown
	require.NoError(t, os.MkdirAll(filepath.Join(p.root, "self"), 0o755))

	find := func(binary, conf string) []int {
		pids, err := findProcesses(p.root, binary, conf)
		require.NoError(t, err)
		return pids
	}
	require.Equal(t, []int{10, 11, 12, 15}, find("mqbroker", ""))
	require.Equal(t, []int{10, 12}, find("mqbroker", confA))
	require.Equal(t, []int{11}, find("mqbroker", confB))
	require.Equal(t, []int{14}, find("mqnamesrv", ""))
	require.Empty(t, find("mqcontroller", ""))

	_, err := findProcesses(p.root, "mqbroker", filepath.Join(confDir, "missing.conf"))
	require.ErrorContains(t, err, "missing.conf")
	_, err = findProcesses(filepath.Join(p.root, "nope"), "mqbroker", "")
	require.ErrorContains(t, err, "/proc")
}

// TestNoneRunning: with nothing to stop mqshutdown says so, as Apache's does, and fails.
func TestNoneRunning(t *testing.T) {
	cmd := NewCommand()
	var out bytes.Buffer
	cmd.SetOut(&out)
	conf := filepath.Join(t.TempDir(), "unused.conf")
	require.NoError(t, os.WriteFile(conf, nil, 0o644))
	cmd.SetArgs([]string{"broker", "-c", conf})
	err := cmd.Execute()
	require.True(t, Reported(err), "%v", err)
	require.Equal(t, "No mqbroker running.\n", out.String())

	cmd = NewCommand()
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetArgs([]string{"proxy"})
	require.ErrorContains(t, cmd.Execute(), `invalid argument "proxy"`)
}
