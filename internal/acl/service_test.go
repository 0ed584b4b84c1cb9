package acl

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"go.uber.org/zap/zaptest"

	"github.com/rocketgo/rocketgo/pkg/protocol"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func writeFile(t *testing.T, path, content string, mod time.Time) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	// An explicit time: two writes within the file system's time granularity must still differ.
	require.NoError(t, os.Chtimes(path, mod, mod))
}

const oneAccount = `accounts:
  - accessKey: user-0001
    secretKey: secret-0001
    defaultTopicPerm: PUB
`

func TestServiceLoadsAndReloads(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plain_acl.yml")
	t0 := time.Now().Add(-time.Hour)
	writeFile(t, path, oneAccount, t0)
	s, err := New(Options{Path: path, ReloadInterval: 10 * time.Millisecond}, zaptest.NewLogger(t))
	require.NoError(t, err)
	s.Start()
	defer s.Close()

	send := func() *protocol.Command {
		return signedReq("user-0001", "secret-0001", protocol.SendMessage, map[string]string{"topic": "T"}, "b")
	}
	require.NoError(t, s.Check(client, send()))
	require.Nil(t, s.Intercept(client, send()))

	// The topic is denied from the next version of the file on.
	writeFile(t, path, oneAccount+"    topicPerms: [T=DENY]\n", t0.Add(time.Second))
	require.Eventually(t, func() bool { return s.Check(client, send()) != nil }, 10*time.Second, 5*time.Millisecond)
	resp := s.Intercept(client, send())
	require.NotNil(t, resp)
	require.Equal(t, protocol.SystemError, resp.ResponseCode())
	require.Equal(t, "org.apache.rocketmq.acl.common.AclException: No default permission for topic:T", resp.Remark)

	// A broken file keeps the rules in force, and so does an empty one (a file being rewritten);
	// fixing it applies the fix.
	s.Close() // from here on the test drives the reloads itself
	before := s.Config()
	for i, broken := range []string{"accounts: [\n", "", "# all commented out\n"} {
		writeFile(t, path, broken, t0.Add(time.Duration(2+i)*time.Second))
		require.False(t, s.reloadIfChanged(), "a changed file is read once it has stayed unchanged for a look")
		require.False(t, s.reloadIfChanged(), "%q is not installed", broken)
		require.Same(t, before, s.Config())
	}
	writeFile(t, path, oneAccount, t0.Add(10*time.Second))
	require.False(t, s.reloadIfChanged())
	require.True(t, s.reloadIfChanged())
	require.NoError(t, s.Check(client, send()))

	// A file changing between looks is not read until it settles.
	writeFile(t, path, oneAccount+"    topicPerms: [T=DENY]\n", t0.Add(11*time.Second))
	require.False(t, s.reloadIfChanged())
	writeFile(t, path, oneAccount+"    topicPerms: [T=SUB]\n", t0.Add(12*time.Second))
	require.False(t, s.reloadIfChanged())
	require.True(t, s.reloadIfChanged())
	requireDenied(t, s.Check(client, send()), "No default permission for topic:T")

	// A deleted file too keeps the rules.
	require.NoError(t, os.Remove(path))
	require.False(t, s.reloadIfChanged())
	require.False(t, s.reloadIfChanged())
	requireDenied(t, s.Check(client, send()), "No default permission for topic:T")
}

func TestServiceNeedsAUsableFile(t *testing.T) {
	dir := t.TempDir()
	_, err := New(Options{Path: filepath.Join(dir, "missing.yml")}, nil)
	require.ErrorContains(t, err, "missing.yml")

	bad := filepath.Join(dir, "bad.yml")
	writeFile(t, bad, "accounts:\n  - accessKey: a\n    secretKey: b\n", time.Now())
	_, err = New(Options{Path: bad}, nil)
	require.ErrorContains(t, err, "bad.yml: line 2")
}

func TestServiceCloseWithoutStartAndTwice(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plain_acl.yml")
	writeFile(t, path, oneAccount, time.Now())
	s, err := New(Options{Path: path}, nil)
	require.NoError(t, err)
	s.Close()
	s.Start()
	s.Close()
	s.Close()
}
