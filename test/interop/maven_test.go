package interop

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rocketgo/rocketgo/test/e2e/cluster"
)

// resolveTimeout bounds the one Maven run; the first may download every artifact into an empty
// ~/.m2 (about 60 MB for both versions).
const resolveTimeout = 10 * time.Minute

var (
	classpathOnce sync.Once
	classpaths    map[string]string
	classpathErr  error
)

// classpath is the Java class path of Apache's name server and broker of version, resolved by
// Maven from servers-<version>/pom.xml. The first call runs one Maven build for every version;
// later calls reuse its answer.
func classpath(t *testing.T, version string) string {
	t.Helper()
	classpathOnce.Do(func() { classpaths, classpathErr = resolveClasspaths(t) })
	if classpathErr != nil {
		t.Fatalf("interop: %v", classpathErr)
	}
	cp, ok := classpaths[version]
	if !ok {
		t.Fatalf("interop: no Maven module for Apache RocketMQ %s", version)
	}
	return cp
}

// projectDir is test/interop, the Maven project's root.
func projectDir() (string, error) {
	root, err := cluster.RepoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "test", "interop"), nil
}

// resolveClasspaths runs `mvn dependency:build-classpath` once for every module and reads the
// class path file each writes.
func resolveClasspaths(t *testing.T) (map[string]string, error) {
	if _, err := exec.LookPath("java"); err != nil {
		return nil, errors.New("java is not on PATH: install a JDK 17 or newer (Debian: apt-get install openjdk-17-jdk-headless)")
	}
	mvn, err := exec.LookPath("mvn")
	if err != nil {
		return nil, errors.New("mvn is not on PATH: install Apache Maven 3.6 or newer (Debian: apt-get install maven)")
	}
	dir, err := projectDir()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	if err := runMaven(mvn, dir, "-B", "-q", "dependency:build-classpath",
		"-Dmdep.outputFile=target/classpath.txt"); err != nil {
		return nil, err
	}
	t.Logf("interop: Apache's servers resolved by Maven in %v", time.Since(start).Round(time.Second))
	out := map[string]string{}
	for _, v := range apacheVersions {
		b, err := os.ReadFile(filepath.Join(dir, "servers-"+v, "target", "classpath.txt"))
		if err != nil {
			return nil, fmt.Errorf("class path of Apache RocketMQ %s: %w", v, err)
		}
		out[v] = strings.TrimSpace(string(b))
	}
	return out, nil
}

// runMaven runs mvn in dir with its output in target/maven.log; Maven and anything it forks is
// killed at the time limit or when the test binary dies.
func runMaven(mvn, dir string, args ...string) error {
	if err := os.MkdirAll(filepath.Join(dir, "target"), 0o755); err != nil {
		return err
	}
	logPath := filepath.Join(dir, "target", "maven.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer logFile.Close()
	ctx, cancel := context.WithTimeout(context.Background(), resolveTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, mvn, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Run(); err != nil {
		b, _ := os.ReadFile(logPath)
		return fmt.Errorf("mvn %s in %s: %w\n%s", strings.Join(args, " "), dir, err, lastLines(string(b), 40))
	}
	return nil
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
