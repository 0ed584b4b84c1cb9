package mqbench

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

func TestProbeFdatasync(t *testing.T) {
	dir := t.TempDir()
	rep, err := ProbeFdatasync(dir, 512, 5)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Count != 5 || rep.Latency.Count != 5 || rep.Latency.MaxUs <= 0 {
		t.Errorf("report %+v: want 5 measured rounds", rep)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("probe left %d files behind", len(left))
	}
	if _, err := ProbeFdatasync(dir+"/missing", 512, 1); err == nil {
		t.Error("a missing directory gave no error")
	}
}

func TestFdatasyncCommand(t *testing.T) {
	cmd := NewCommand()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"fdatasync", "--dir", t.TempDir(), "--count", "3", "--size", "64"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "3 x 64 bytes") || !strings.Contains(out.String(), "p99") {
		t.Errorf("output %q", out.String())
	}
	cmd.SetArgs([]string{"fdatasync", "--dir", t.TempDir(), "--count", "0"})
	if err := cmd.Execute(); err == nil {
		t.Error("--count 0 was accepted")
	}
}
