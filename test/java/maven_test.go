package javatest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rocketgo/rocketgo/test/e2e/cluster"
)

// Time limits of the two Maven runs: the first may download every dependency into an empty ~/.m2.
const (
	resolveTimeout = 10 * time.Minute
	suiteTimeout   = 8 * time.Minute
)

// requireTools fails the test, with what to install, unless java and mvn are on PATH.
func requireTools(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("java"); err != nil {
		t.Fatalf("javatest: java is not on PATH: install a JDK 17 or newer (Debian: apt-get install openjdk-17-jdk-headless)")
	}
	mvn, err := exec.LookPath("mvn")
	if err != nil {
		t.Fatalf("javatest: mvn is not on PATH: install Apache Maven 3.6 or newer (Debian: apt-get install maven)")
	}
	return mvn
}

// projectDir is test/java, the Maven project's root.
func projectDir(t *testing.T) string {
	t.Helper()
	root, err := cluster.RepoRoot()
	if err != nil {
		t.Fatalf("javatest: %v", err)
	}
	return filepath.Join(root, "test", "java")
}

// moduleDir is the Maven module of one client version.
func moduleDir(dir, version string) string {
	return filepath.Join(dir, "client-"+version)
}

// clearReports removes the surefire reports and client logs of an earlier run, so that only this
// run's are read.
func clearReports(t *testing.T, dir string) {
	t.Helper()
	for _, v := range versions {
		for _, sub := range []string{"surefire-reports", "home", "rocketmqlogs"} {
			if err := os.RemoveAll(filepath.Join(moduleDir(dir, v), "target", sub)); err != nil {
				t.Fatalf("javatest: %v", err)
			}
		}
	}
}

// resolve compiles both modules and resolves every dependency and plugin, downloading what ~/.m2
// lacks, so that the suite itself can run offline with both modules built in parallel. It runs
// ClasspathTest, as surefire resolves its JUnit provider only when a test runs.
func resolve(t *testing.T, mvn, dir string) {
	t.Helper()
	start := time.Now()
	err := maven(t, mvn, dir, resolveTimeout, "resolve.log",
		"-B", "-q", "test", "-Dtest=ClasspathTest")
	if err != nil {
		t.Fatalf("javatest: resolving and compiling the Maven project failed: %v\n%s", err,
			tail(filepath.Join(dir, "target", "resolve.log"), 60))
	}
	t.Logf("javatest: Maven project compiled and resolved in %v", time.Since(start).Round(time.Second))
}

// runSuite runs every scenario of both modules at once (-T 2: one JVM per client version),
// offline, with the clusters' addresses as system properties. A failed build is reported by the
// caller together with the surefire reports.
func runSuite(t *testing.T, mvn, dir string, props map[string]string) error {
	t.Helper()
	args := []string{"-B", "-q", "-o", "-T", "2", "test", "-Dsurefire.failIfNoSpecifiedTests=false"}
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		args = append(args, "-D"+k+"="+props[k])
	}
	if only := os.Getenv("JAVA_TEST"); only != "" {
		args = append(args, "-Dtest="+only) // e.g. JAVA_TEST=ProducerTest to run one class
	}
	if os.Getenv("JAVA_DISABLED") != "" {
		// Run the @Disabled and @DisabledIf scenarios too, to see how each fails today.
		args = append(args, "-Djunit.jupiter.conditions.deactivate=*")
	}
	start := time.Now()
	err := maven(t, mvn, dir, suiteTimeout, "suite.log", args...)
	t.Logf("javatest: Maven suite ran in %v", time.Since(start).Round(time.Second))
	if err != nil {
		return fmt.Errorf("%w\n%s", err, tail(filepath.Join(dir, "target", "suite.log"), 80))
	}
	return nil
}

// maven runs mvn in dir with its output in target/<logName>; the whole process group (Maven and
// the JVMs it forks) is killed at the time limit or when the test binary dies.
func maven(t *testing.T, mvn, dir string, limit time.Duration, logName string, args ...string) error {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "target"), 0o755); err != nil {
		return err
	}
	logFile, err := os.Create(filepath.Join(dir, "target", logName))
	if err != nil {
		return err
	}
	defer logFile.Close()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, mvn, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	err = cmd.Run()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("mvn %s: killed after %v", strings.Join(args, " "), limit)
	}
	if err != nil {
		return fmt.Errorf("mvn %s: %w", strings.Join(args, " "), err)
	}
	return nil
}

// tail is the last n lines of the file at path, or why it could not be read.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(%v)", err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
