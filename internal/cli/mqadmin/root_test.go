package mqadmin

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/admin/admintest"
)

// testEnv is a run's environment with the files Java's tools write (message bodies, exports,
// consumer running info) in temporary directories.
func testEnv(t *testing.T) *adminEnv {
	env := defaultEnv()
	env.tmpDir, env.workDir = t.TempDir(), t.TempDir()
	return env
}

// runAdmin runs mqadmin with args and returns what it printed on stdout and stderr.
func runAdmin(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	return runAdminEnv(t, testEnv(t), args...)
}

// runAdminEnv runs mqadmin in env.
func runAdminEnv(t *testing.T, env *adminEnv, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	cmd := newRootCommand(env)
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(args)
	err = cmd.Execute()
	return out.String(), errOut.String(), err
}

// mustRunAdmin runs mqadmin and fails the test unless it succeeds.
func mustRunAdmin(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, err := runAdmin(t, args...)
	require.NoError(t, err, "mqadmin %s\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), out, errOut)
	return out
}

// lines splits output into its lines, the trailing newline dropped.
func lines(out string) []string { return strings.Split(strings.TrimSuffix(out, "\n"), "\n") }

// requireLine fails unless some line of out matches the regular expression.
func requireLine(t *testing.T, out, pattern string) {
	t.Helper()
	if !matchesLine(out, pattern) {
		t.Fatalf("no line matches %q in:\n%s", pattern, out)
	}
}

// matchesLine says whether some line of out matches the regular expression.
func matchesLine(out, pattern string) bool {
	re := regexp.MustCompile(pattern)
	for _, l := range lines(out) {
		if re.MatchString(l) {
			return true
		}
	}
	return false
}

// TestAdminNamesrvFromEnv: without -n the name servers come from NAMESRV_ADDR; with neither the
// command fails saying so.
func TestAdminNamesrvFromEnv(t *testing.T) {
	cl := admintest.Start(t)
	t.Setenv("NAMESRV_ADDR", cl.NamesrvAddr)
	require.Contains(t, lines(mustRunAdmin(t, "topicList")), admintest.ClusterName)

	t.Setenv("NAMESRV_ADDR", "")
	_, errOut, err := runAdmin(t, "topicList")
	require.Error(t, err)
	require.Contains(t, errOut, "no name server address")
}

// TestAdminRequiredFlags: a missing required flag is a usage error, not a request.
func TestAdminRequiredFlags(t *testing.T) {
	for _, args := range [][]string{
		{"topicRoute"}, {"topicStatus"}, {"updateTopic", "-c", "C"}, {"deleteTopic", "-t", "T"},
		{"consumerConnection"}, {"queryMsgByKey", "-t", "T"}, {"queryMsgById"}, {"queryMsgByUniqueKey", "-i", "X"},
	} {
		_, errOut, err := runAdmin(t, append(args, "-n", "127.0.0.1:1")...)
		require.Error(t, err, "%v", args)
		require.Contains(t, errOut, "required flag", "%v", args)
	}
}
