package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// userHZ is the unit of utime and stime in /proc/PID/stat: USER_HZ, 100 on every Linux this runs on.
const userHZ = 100

// parseStatCPU reads utime+stime (fields 14 and 15) from a /proc/PID/stat line. The command name
// (field 2) is in parentheses and may hold spaces and parentheses, so fields are counted from the
// last ')'.
func parseStatCPU(b []byte) (time.Duration, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("stat line without a command name")
	}
	f := bytes.Fields(b[i+1:]) // f[0] is field 3 (state): utime is f[11], stime f[12]
	if len(f) < 13 {
		return 0, fmt.Errorf("stat line has %d fields after the command name, want at least 13", len(f))
	}
	ut, err1 := strconv.ParseUint(string(f[11]), 10, 64)
	st, err2 := strconv.ParseUint(string(f[12]), 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("stat line: utime %q or stime %q is not a number", f[11], f[12])
	}
	return time.Duration(ut+st) * time.Second / userHZ, nil
}

// procCPU is process pid's user plus system CPU time.
func procCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	return parseStatCPU(b)
}

// memory is a process's resident memory from /proc/PID/status, in bytes: anonymous (heap, stacks)
// apart from file pages (mapped files, i.e. page cache the process maps) and shared memory.
type memory struct {
	RssAnon, RssFile, RssShmem int64
}

// parseStatus reads RssAnon, RssFile and RssShmem ("kB" lines) from /proc/PID/status.
func parseStatus(b []byte) (memory, error) {
	var m memory
	found := 0
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		var dst *int64
		switch name {
		case "RssAnon":
			dst = &m.RssAnon
		case "RssFile":
			dst = &m.RssFile
		case "RssShmem":
			dst = &m.RssShmem
		}
		if !ok || dst == nil {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return m, fmt.Errorf("status line %q: want a number of kB", sc.Text())
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return m, fmt.Errorf("status line %q: %w", sc.Text(), err)
		}
		*dst = kb << 10
		found++
	}
	if found != 3 {
		return m, fmt.Errorf("status has %d of RssAnon, RssFile and RssShmem", found)
	}
	return m, nil
}

func procMemory(pid int) (memory, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return memory{}, err
	}
	return parseStatus(b)
}

// parseDiskFlushes returns the flush requests completed (the 16th number after the name, Linux
// 5.5+) of the block device major:minor in /proc/diskstats. An fdatasync on a device with a
// volatile write cache ends in one such request (the block layer may merge concurrent ones), so
// the count is the syncs the device was asked for, whoever asked: other processes' too.
func parseDiskFlushes(b []byte, major, minor uint32) (int64, error) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 3 || f[0] != strconv.FormatUint(uint64(major), 10) || f[1] != strconv.FormatUint(uint64(minor), 10) {
			continue
		}
		if len(f) < 3+17 {
			return 0, fmt.Errorf("diskstats line of %s has no flush counters (kernel before 5.5)", f[2])
		}
		return strconv.ParseInt(f[3+15], 10, 64)
	}
	return 0, fmt.Errorf("no diskstats line for device %d:%d", major, minor)
}

// diskFlushes is the flush count of the device holding dir.
func diskFlushes(dir string) (int64, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(dir, &st); err != nil {
		return 0, err
	}
	b, err := os.ReadFile("/proc/diskstats")
	if err != nil {
		return 0, err
	}
	return parseDiskFlushes(b, unix.Major(st.Dev), unix.Minor(st.Dev))
}

// parsePromValue sums the samples of metric name (any labels) in a Prometheus text exposition.
func parsePromValue(b []byte, name string) (float64, bool) {
	var sum float64
	found := false
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name) {
			continue
		}
		rest := line[len(name):]
		if rest == "" || (rest[0] != ' ' && rest[0] != '{') {
			continue // a longer name
		}
		f := strings.Fields(rest[strings.LastIndexByte(rest, '}')+1:])
		if len(f) == 0 {
			continue
		}
		v, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			continue
		}
		sum += v
		found = true
	}
	return sum, found
}

// loadAvg is /proc/loadavg's three averages.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
