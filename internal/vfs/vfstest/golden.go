package vfstest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// CompareGolden compares trace lines with the golden file path (one line
// each), or rewrites the file when update is set (a test's -update flag).
func CompareGolden(t testing.TB, path string, trace []string, update bool) {
	t.Helper()
	got := strings.Join(trace, "\n") + "\n"
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden trace (run with -update to create it): %v", err)
	}
	if string(want) != got {
		t.Errorf("operation trace differs from %s (run with -update to accept):\n%s", path, lineDiff(string(want), got))
	}
}

// lineDiff shows the first differing line and both traces around it.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	i := 0
	for i < len(w) && i < len(g) && w[i] == g[i] {
		i++
	}
	var b strings.Builder
	for j := max(i-3, 0); j < i; j++ {
		b.WriteString("  " + w[j] + "\n")
	}
	for j := i; j < min(i+5, len(w)); j++ {
		b.WriteString("- " + w[j] + "\n")
	}
	for j := i; j < min(i+5, len(g)); j++ {
		b.WriteString("+ " + g[j] + "\n")
	}
	return b.String()
}
