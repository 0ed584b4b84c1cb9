// Package version says which build a binary is: the release version and commit that `make build`
// stamps with -ldflags -X, else what the Go toolchain recorded (the module version and the VCS
// revision, time and dirty flag of debug.ReadBuildInfo), else that nothing was recorded. Every
// binary's --version prints Line.
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// Stamped by the Makefile:
//
//	-ldflags "-X github.com/rocketgo/rocketgo/internal/version.version=v0.3.0-12-gabc1234
//	          -X github.com/rocketgo/rocketgo/internal/version.commit=abc1234..."
//
// They are the package's only variables: -X can set nothing else. Empty in a plain `go build`.
var (
	version string
	commit  string
)

// Build is what is known about the running binary's build.
type Build struct {
	Version  string // release version, e.g. "v0.3.0-12-gabc1234", or "(devel)"
	Commit   string // VCS revision, or "" when unknown
	Time     string // commit time (RFC 3339), or ""
	Modified bool   // built from a working tree with uncommitted changes
	Go       string // Go version
	Platform string // GOOS/GOARCH
}

// Current is the running binary's build: the stamped values first, then the build info.
func Current() Build {
	info, ok := debug.ReadBuildInfo()
	return fromInfo(info, ok, version, commit)
}

// fromInfo merges the stamped version and commit over the build info (ok false: none).
func fromInfo(info *debug.BuildInfo, ok bool, stampedVersion, stampedCommit string) Build {
	b := Build{Version: "(devel)", Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if ok {
		b.readInfo(info)
	}
	if stampedVersion != "" {
		b.Version = stampedVersion
		b.Modified = b.Modified || strings.HasSuffix(stampedVersion, "-dirty")
	}
	if stampedCommit != "" {
		b.Commit = stampedCommit
	}
	return b
}

// readInfo takes the module version and the vcs.* settings `go build` records.
func (b *Build) readInfo(info *debug.BuildInfo) {
	if v := info.Main.Version; v != "" {
		b.Version = v
	}
	if info.GoVersion != "" {
		b.Go = info.GoVersion
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Commit = s.Value
		case "vcs.time":
			b.Time = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
}

// String is one line, e.g. "v0.3.0 (commit 44e6b24 2025-06-01T10:00:00Z, modified) go1.26.0
// linux/amd64", or "(devel) (commit unknown: built without make and without VCS stamping) ...".
func (b Build) String() string {
	rev := "commit unknown: built without make and without VCS stamping"
	if b.Commit != "" {
		rev = "commit " + short(b.Commit)
		if b.Time != "" {
			rev += " " + b.Time
		}
		if b.Modified {
			rev += ", modified"
		}
	}
	return fmt.Sprintf("%s (%s) %s %s", b.Version, rev, b.Go, b.Platform)
}

// short is the first 12 characters of a revision.
func short(rev string) string {
	if len(rev) > 12 {
		return rev[:12]
	}
	return rev
}

// Line is what `<binary> --version` prints: the binary's name, then Current.
func Line(binary string) string { return binary + " " + Current().String() }
