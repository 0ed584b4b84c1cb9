package version

import (
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFromInfo(t *testing.T) {
	vcs := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v0.0.0-20250601100000-0123456789ab+dirty"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"},
			{Key: "vcs.time", Value: "2025-06-01T10:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	for name, tc := range map[string]struct {
		info          *debug.BuildInfo
		ok            bool
		stamp, commit string
		want          string
	}{
		"make build": {info: vcs, ok: true, stamp: "v0.3.0-2-gabc", commit: "abcdef1234567890",
			want: "v0.3.0-2-gabc (commit abcdef123456 2025-06-01T10:00:00Z, modified) go1.26.0"},
		"go build with VCS stamping": {info: vcs, ok: true,
			want: "v0.0.0-20250601100000-0123456789ab+dirty (commit 0123456789ab 2025-06-01T10:00:00Z, modified) go1.26.0"},
		"go build -buildvcs=false": {info: &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}}, ok: true,
			want: "(devel) (commit unknown: built without make and without VCS stamping) go1.26.0"},
		"no build info": {ok: false, want: "(devel) (commit unknown: built without make and without VCS stamping) go"},
		"a dirty stamp": {info: &debug.BuildInfo{}, ok: true, stamp: "v1.0.0-dirty", commit: "abc",
			want: "v1.0.0-dirty (commit abc, modified)"},
	} {
		t.Run(name, func(t *testing.T) {
			got := fromInfo(tc.info, tc.ok, tc.stamp, tc.commit).String()
			require.True(t, strings.HasPrefix(got, tc.want), "got %q, want prefix %q", got, tc.want)
		})
	}
}

func TestLine(t *testing.T) {
	line := Line("mqbroker")
	require.True(t, strings.HasPrefix(line, "mqbroker "), line)
	require.NotContains(t, line, "\n")
}
