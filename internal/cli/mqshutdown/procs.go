package mqshutdown

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// findProcesses lists the pids, in /proc at procRoot, of the processes running binary (their
// executable's or argv[0]'s base name), started with the configuration file conf when it is set.
func findProcesses(procRoot, binary, conf string) ([]int, error) {
	entries, err := os.ReadDir(procRoot)
	if err != nil {
		return nil, fmt.Errorf("mqshutdown: list processes: %w (mqshutdown needs Linux's /proc)", err)
	}
	var confInfo os.FileInfo
	if conf != "" {
		if confInfo, err = os.Stat(conf); err != nil {
			return nil, fmt.Errorf("mqshutdown: -c %s: %w", conf, err)
		}
	}
	self := os.Getpid()
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		dir := filepath.Join(procRoot, e.Name())
		args := cmdline(dir)
		if !isBinary(dir, args, binary) || (confInfo != nil && !startedWith(dir, args, confInfo)) {
			continue
		}
		pids = append(pids, pid)
	}
	sort.Ints(pids)
	return pids, nil
}

// cmdline is a process's arguments (empty for a kernel thread or a process gone meanwhile).
func cmdline(dir string) []string {
	data, err := os.ReadFile(filepath.Join(dir, "cmdline"))
	if err != nil || len(data) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(data), "\x00"), "\x00")
}

// isBinary reports whether the process's executable, or else its argv[0], is called binary. The
// executable can be read for one's own processes only; " (deleted)" marks a binary replaced on
// disk since it started (a rebuild), which is still the same program.
func isBinary(dir string, args []string, binary string) bool {
	if exe, err := os.Readlink(filepath.Join(dir, "exe")); err == nil {
		return filepath.Base(strings.TrimSuffix(exe, " (deleted)")) == binary
	}
	return len(args) > 0 && filepath.Base(args[0]) == binary
}

// startedWith reports whether the process's -c/--configFile argument, resolved against its
// working directory, is the file conf.
func startedWith(dir string, args []string, conf os.FileInfo) bool {
	path := configArg(args)
	if path == "" {
		return false
	}
	if !filepath.IsAbs(path) {
		cwd, err := os.Readlink(filepath.Join(dir, "cwd"))
		if err != nil {
			return false
		}
		path = filepath.Join(cwd, path)
	}
	st, err := os.Stat(path)
	return err == nil && os.SameFile(st, conf)
}

// configArg is the value of -c or --configFile in args ("-c x", "-c=x", "-cx", "--configFile x",
// "--configFile=x"), or "".
func configArg(args []string) string {
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-c" || a == "--configFile":
			if i+1 < len(args) {
				return args[i+1]
			}
		case strings.HasPrefix(a, "--configFile="):
			return strings.TrimPrefix(a, "--configFile=")
		case strings.HasPrefix(a, "-c"):
			return strings.TrimPrefix(strings.TrimPrefix(a, "-c"), "=")
		}
	}
	return ""
}

// isZombie reports whether /proc/<pid>/stat says the process has exited and waits to be reaped.
func isZombie(stat []byte) bool {
	i := bytes.LastIndexByte(stat, ')') // the command name may hold blanks and parentheses
	return i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z'
}
