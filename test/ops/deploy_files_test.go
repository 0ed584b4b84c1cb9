package ops

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// unit is a parsed systemd unit file: section → key → values (a key may repeat).
type unit map[string]map[string][]string

// parseUnit reads systemd's unit syntax: [Section] headers, Key=Value lines, '#'/';' comments,
// '\' continuations. Anything else is an error.
func parseUnit(t testing.TB, path string) unit {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	u, section, pending := unit{}, "", ""
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := pending + strings.TrimSpace(sc.Text())
		pending = ""
		if strings.HasSuffix(line, `\`) {
			pending = strings.TrimSuffix(line, `\`) + " "
			continue
		}
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
		case line[0] == '[' && line[len(line)-1] == ']':
			section = line[1 : len(line)-1]
			require.NotContains(t, u, section, "%s:%d: section [%s] twice", path, n, section)
			u[section] = map[string][]string{}
		default:
			k, v, ok := strings.Cut(line, "=")
			require.True(t, ok && section != "" && regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]*$`).MatchString(k),
				"%s:%d: not Key=Value in a section: %q", path, n, line)
			u[section][k] = append(u[section][k], v)
		}
	}
	require.NoError(t, sc.Err())
	return u
}

// TestSystemdUnits: each unit of deploy/systemd parses, runs a binary this repository builds as an
// unprivileged user with a conf of deploy/systemd that the binary loads (-p), stops with SIGTERM
// and a stop timeout, reloads with SIGHUP, and is hardened; the broker is ordered after the name
// server (so that it stops first). With systemd-analyze on the machine, `systemd-analyze verify`
// must pass without a warning (the binary path pointed at bin/) and `systemd-analyze security
// --offline` must rate the unit's exposure at most 2.0.
func TestSystemdUnits(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	units, err := filepath.Glob(filepath.Join(root, "deploy", "systemd", "*.service"))
	require.NoError(t, err)
	require.Len(t, units, 2)
	for _, path := range units {
		u := parseUnit(t, path)
		svc := u["Service"]
		require.NotNil(t, svc, "%s: [Service]", path)
		require.NotNil(t, u["Install"], "%s: [Install]", path)
		exec := strings.Fields(svc["ExecStart"][0])
		binary := filepath.Base(exec[0])
		require.Equal(t, "/usr/local/bin/"+binary, exec[0], "%s", path)
		require.DirExists(t, filepath.Join(root, "cmd", binary), "%s runs a binary of cmd/", path)
		require.Equal(t, "-c", exec[1], "%s", path)
		conf := filepath.Join(root, "deploy", "systemd", strings.TrimPrefix(exec[2], "/etc/rocketgo/"))
		text, err := os.ReadFile(conf)
		require.NoError(t, err, "%s: its conf %s is in deploy/systemd", path, exec[2])
		loadConf(t, binary, filepath.Base(conf), string(text))

		require.Equal(t, []string{"rocketmq"}, svc["User"], "%s", path)
		require.Equal(t, []string{"SIGTERM"}, svc["KillSignal"], "%s", path)
		require.NotEmpty(t, svc["TimeoutStopSec"], "%s", path)
		require.Equal(t, []string{"/bin/kill -HUP $MAINPID"}, svc["ExecReload"], "%s", path)
		for _, k := range []string{"NoNewPrivileges", "ProtectSystem", "ProtectHome", "PrivateTmp",
			"CapabilityBoundingSet", "SystemCallFilter", "RestrictAddressFamilies", "MemoryDenyWriteExecute"} {
			require.NotEmpty(t, svc[k], "%s: hardening %s", path, k)
		}
		if binary == "mqbroker" {
			require.Contains(t, strings.Fields(u["Unit"]["After"][0]), "rocketgo-namesrv.service", "%s", path)
		}
	}
	verifyWithSystemd(t, units)
}

func verifyWithSystemd(t testing.TB, units []string) {
	t.Helper()
	if _, err := exec.LookPath("systemd-analyze"); err != nil {
		t.Log("systemd-analyze not installed: units checked by the parser above only")
		return
	}
	dir := t.TempDir()
	var copies []string
	for _, path := range units {
		text, err := os.ReadFile(path)
		require.NoError(t, err)
		// verify checks that ExecStart's binary exists: point it at this repository's.
		text = []byte(strings.ReplaceAll(string(text), "/usr/local/bin/", filepath.Join(repoRoot(t), "bin")+"/"))
		cp := filepath.Join(dir, filepath.Base(path))
		require.NoError(t, os.WriteFile(cp, text, 0o644))
		copies = append(copies, cp)
	}
	out, err := exec.Command("systemd-analyze", append([]string{"verify", "--man=no"}, copies...)...).CombinedOutput()
	require.NoError(t, err, "systemd-analyze verify: %s", out)
	require.Empty(t, strings.TrimSpace(string(out)), "systemd-analyze verify warns")
	for _, cp := range copies {
		out, err := exec.Command("systemd-analyze", "security", "--offline=yes", "--threshold=20", cp).CombinedOutput()
		overall := regexp.MustCompile(`Overall exposure level for \S+: [0-9.]+ \S+`).FindString(string(out))
		require.NoError(t, err, "systemd-analyze security: exposure above 2.0: %s\n%s", overall, out)
		t.Logf("systemd-analyze security: %s", overall)
	}
}

// instruction is one instruction of a Dockerfile, its continuation lines joined.
type instruction struct{ cmd, args string }

// parseDockerfile lists the instructions of the Dockerfile at path.
func parseDockerfile(t testing.TB, path string) []instruction {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var out []instruction
	joined := ""
	for _, l := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(l)
		if joined == "" && (trimmed == "" || strings.HasPrefix(trimmed, "#")) {
			continue
		}
		if strings.HasSuffix(trimmed, `\`) {
			joined += strings.TrimSuffix(trimmed, `\`) + " "
			continue
		}
		joined += trimmed
		cmd, args, _ := strings.Cut(joined, " ")
		out = append(out, instruction{cmd: strings.ToUpper(cmd), args: strings.TrimSpace(args)})
		joined = ""
	}
	require.Empty(t, joined, "%s ends in a continuation", path)
	return out
}

// TestDockerfile: deploy/Dockerfile is a multi-stage build whose build stage makes static
// binaries (CGO_ENABLED=0) of this repository's commands, stamped with the version, and whose
// final stage is not the Go toolchain, runs as a non-root user, declares the store and logs
// volumes, exposes the servers' ports and ships confs that the binaries load (with their data and
// metrics port where the image says). When a Docker daemon answers, the image is built; on a
// machine without one (as the one this was written on) only these static checks run.
func TestDockerfile(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	path := filepath.Join(root, "deploy", "Dockerfile")
	ins := parseDockerfile(t, path)
	require.FileExists(t, path+".dockerignore")
	var froms []int
	for i, in := range ins {
		require.Contains(t, []string{"FROM", "ARG", "WORKDIR", "COPY", "RUN", "ENV", "USER", "EXPOSE", "VOLUME",
			"STOPSIGNAL", "CMD", "ENTRYPOINT", "LABEL", "HEALTHCHECK"}, in.cmd, "instruction %q", in.cmd)
		if in.cmd == "FROM" {
			froms = append(froms, i)
		}
	}
	require.GreaterOrEqual(t, len(froms), 2, "multi-stage")
	build, final := ins[froms[0]:froms[len(froms)-1]], ins[froms[len(froms)-1]:]
	require.NotContains(t, final[0].args, "golang", "the final stage is not the toolchain")

	var buildRun string
	for _, in := range build {
		if in.cmd == "RUN" && strings.Contains(in.args, "go build") {
			buildRun = in.args
		}
	}
	require.Contains(t, buildRun, "CGO_ENABLED=0", "static binaries")
	require.Contains(t, buildRun, "internal/version.version=")
	for _, name := range []string{"mqnamesrv", "mqbroker", "mqadmin", "mqshutdown"} {
		require.Contains(t, buildRun, "./cmd/"+name)
		require.DirExists(t, filepath.Join(root, "cmd", name))
	}
	for _, m := range regexp.MustCompile(`deploy/docker/\S+`).FindAllString(buildRun, -1) {
		require.FileExists(t, filepath.Join(root, m), "the build copies %s", m)
	}

	last := func(cmd string) string {
		v := ""
		for _, in := range final {
			if in.cmd == cmd {
				v = in.args
			}
		}
		return v
	}
	user := strings.Split(last("USER"), ":")[0]
	require.NotEmpty(t, user, "USER in the final stage")
	require.NotContains(t, []string{"0", "root"}, user, "non-root")
	volumes, exposed := last("VOLUME"), strings.Fields(last("EXPOSE"))
	require.Contains(t, volumes, `"/home/rocketmq/store"`)
	require.Contains(t, volumes, `"/home/rocketmq/logs"`)
	for _, port := range []string{"9876", "10911", "10912", "5557"} {
		require.Contains(t, exposed, port)
	}
	for binary, conf := range map[string]string{"mqnamesrv": "namesrv.conf", "mqbroker": "broker.conf"} {
		text, err := os.ReadFile(filepath.Join(root, "deploy", "docker", conf))
		require.NoError(t, err)
		props := loadConf(t, binary, conf, string(text))
		require.Contains(t, exposed, props["metricsPromExporterPort"], "%s: the metrics port is exposed", conf)
		for _, k := range []string{"storePathRootDir", "kvConfigPath"} {
			if v := props[k]; v != "" {
				require.True(t, strings.HasPrefix(v, "/home/rocketmq/store"), "%s: %s=%s is on the store volume", conf, k, v)
			}
		}
	}
	dockerBuild(t, root, path)
}

// dockerBuild builds the image when a Docker daemon answers.
func dockerBuild(t testing.TB, root, dockerfile string) {
	t.Helper()
	if _, err := exec.LookPath("docker"); err != nil {
		t.Log("docker not installed: Dockerfile checked statically only")
		return
	}
	if out, err := exec.Command("docker", "info").CombinedOutput(); err != nil {
		t.Logf("no Docker daemon (%s): Dockerfile checked statically only", lastLine(string(out)))
		return
	}
	tag := "rocketgo-ops-test:" + time.Now().Format("20060102150405")
	cmd := exec.Command("docker", "build", "-f", dockerfile, "-t", tag, root)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "docker build: %s", out)
	defer func() { _ = exec.Command("docker", "rmi", tag).Run() }()
	out, err = exec.Command("docker", "run", "--rm", tag, "mqbroker", "--version").CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.True(t, slices.Contains(strings.Fields(string(out)), "mqbroker"), "%s", out)
}

func lastLine(s string) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(ls[len(ls)-1])
}
