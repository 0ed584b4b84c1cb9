package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// diskUse is what a directory tree takes on disk.
type diskUse struct {
	du          int64 // du -s --block-size=1: files and directories
	files, dirs int64 // allocated bytes of the regular files, of the directories
	nFiles      int
	nDirs       int
	logical     int64 // the files' lengths
}

func measureDisk(dir string) (diskUse, error) {
	var u diskUse
	out, err := exec.Command("du", "-s", "--block-size=1", dir).Output()
	if err != nil {
		return u, fmt.Errorf("du %s: %w", dir, err)
	}
	if u.du, err = strconv.ParseInt(strings.Fields(string(out))[0], 10, 64); err != nil {
		return u, err
	}
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		st := info.Sys().(*syscall.Stat_t)
		if d.IsDir() {
			u.dirs += st.Blocks * 512
			u.nDirs++
			return nil
		}
		u.files += st.Blocks * 512
		u.logical += st.Size
		u.nFiles++
		return nil
	})
	return u, err
}

// procUse is what /proc says of a process.
type procUse struct {
	rssAnon, rssFile, rssShmem int64 // bytes
	fds, maps                  int
}

func measureProc(pid int) (procUse, error) {
	var u procUse
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return u, err
	}
	for _, line := range strings.Split(string(status), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "RssAnon:":
			u.rssAnon = kb << 10
		case "RssFile:":
			u.rssFile = kb << 10
		case "RssShmem:":
			u.rssShmem = kb << 10
		}
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return u, err
	}
	u.fds = len(fds)
	maps, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		return u, err
	}
	u.maps = bytes.Count(maps, []byte("\n"))
	return u, nil
}

// countLines is the number of lines of the file at path that contain s.
func countLines(path, s string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if strings.Contains(sc.Text(), s) {
			n++
		}
	}
	return n
}

func mib(b int64) string {
	if b < 1<<20 {
		return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
}
