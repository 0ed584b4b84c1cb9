package cluster

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Names of the binaries under <repo>/bin.
const (
	NamesrvBinary = "mqnamesrv"
	BrokerBinary  = "mqbroker"
)

var (
	rootOnce sync.Once
	rootDir  string
	rootErr  error
)

// RepoRoot returns the nearest directory at or above the working directory that holds go.mod.
func RepoRoot() (string, error) {
	rootOnce.Do(func() {
		dir, err := os.Getwd()
		if err != nil {
			rootErr = fmt.Errorf("cluster: working directory: %w", err)
			return
		}
		for {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				rootDir = dir
				return
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				rootErr = fmt.Errorf("cluster: no go.mod above the working directory")
				return
			}
			dir = parent
		}
	})
	return rootDir, rootErr
}

// Binary returns the path of <repo>/bin/<name>, failing t with a clear message when it is missing
// or not executable.
func Binary(t testing.TB, name string) string {
	t.Helper()
	root, err := RepoRoot()
	if err != nil {
		t.Fatalf("e2e: %v", err)
	}
	path := filepath.Join(root, "bin", name)
	st, err := os.Stat(path)
	if err != nil {
		t.Fatalf("e2e: binary %s is missing (%v); build it with `make build` (make test-e2e does this first)", path, err)
	}
	if st.IsDir() || st.Mode()&0o111 == 0 {
		t.Fatalf("e2e: %s is not an executable file (mode %v); rebuild with `make build`", path, st.Mode())
	}
	return path
}
