package ops

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var stamped = regexp.MustCompile(`internal/version\.(version|commit)=(\S+)`)

// TestVersion: every binary's --version is one line that starts with its name and carries the
// version and commit `make build` stamped into it (read back from the binary's build settings
// with `go version -m`).
func TestVersion(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"mqnamesrv", "mqbroker", "mqadmin", "mqbench", "mqshutdown"} {
		path := bin(t, name)
		out, err := exec.Command(path, "--version").CombinedOutput()
		require.NoError(t, err, "%s --version: %s", name, out)
		line := string(out)
		require.True(t, strings.HasPrefix(line, name+" "), "%q", line)
		require.Equal(t, 1, strings.Count(line, "\n"), "one line: %q", line)

		info, err := exec.Command("go", "version", "-m", path).CombinedOutput()
		require.NoError(t, err, "go version -m %s", path)
		stamps := map[string]string{}
		for _, m := range stamped.FindAllStringSubmatch(string(info), -1) {
			stamps[m[1]] = strings.Trim(m[2], `"'`)
		}
		require.NotEmpty(t, stamps["version"], "%s was not built by make build (no -X version in its build settings); run make build", path)
		require.Contains(t, line, name+" "+stamps["version"]+" (commit "+stamps["commit"][:min(12, len(stamps["commit"]))])
	}
}

// TestVersionOfPlainGoBuild: a binary built without the Makefile and without VCS stamping says
// that it does not know its commit, instead of making one up.
func TestVersionOfPlainGoBuild(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "mqshutdown")
	build := exec.Command("go", "build", "-o", out, "./cmd/mqshutdown")
	build.Dir = repoRoot(t)
	build.Env = append(os.Environ(), "GOFLAGS=-buildvcs=false")
	msg, err := build.CombinedOutput()
	require.NoError(t, err, "%s", msg)
	got, err := exec.Command(out, "--version").CombinedOutput()
	require.NoError(t, err)
	require.Regexp(t, `^mqshutdown \(devel\) \(commit unknown: built without make and without VCS stamping\) go1\.\S+ \S+/\S+\n$`, string(got))
}
