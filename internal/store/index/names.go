package index

import (
	"fmt"
	"path/filepath"
	"time"
)

// nameLen is the length of a file name: yyyyMMddHHmmssSSS.
const nameLen = 17

// FileName is the name Java gives an index file created at t (UtilAll.timeMillisToHumanString):
// local time, yyyyMMddHHmmssSSS.
func FileName(t time.Time) string {
	t = t.Local()
	return fmt.Sprintf("%s%03d", t.Format("20060102150405"), t.Nanosecond()/int(time.Millisecond))
}

// ParseFileName reads the creation time back from a file name.
func ParseFileName(name string) (time.Time, error) {
	if !isFileName(name) {
		return time.Time{}, fmt.Errorf("index: %q is not an index file name (yyyyMMddHHmmssSSS)", name)
	}
	t, err := time.ParseInLocation("20060102150405", name[:14], time.Local)
	if err != nil {
		return time.Time{}, fmt.Errorf("index: file name %q: %w", name, err)
	}
	ms := int(name[14]-'0')*100 + int(name[15]-'0')*10 + int(name[16]-'0')
	return t.Add(time.Duration(ms) * time.Millisecond), nil
}

// isFileName reports whether name has the shape of an index file name: 17 digits.
func isFileName(name string) bool {
	if len(name) != nameLen {
		return false
	}
	for i := 0; i < len(name); i++ {
		if name[i] < '0' || name[i] > '9' {
			return false
		}
	}
	return true
}

// nextFileName names a file created at now so that it sorts after last (the newest existing
// name, or ""), even when the clock has not moved on or has gone back.
func nextFileName(now time.Time, last string) string {
	if last == "" {
		return FileName(now)
	}
	lt, err := ParseFileName(last)
	if err != nil {
		return FileName(now)
	}
	if floor := lt.Add(time.Millisecond); now.Before(floor) {
		now = floor
	}
	if name := FileName(now); name > last {
		return name
	}
	// A local-time name can go backwards across a DST change; step until it sorts after last.
	for t := now.Add(time.Millisecond); ; t = t.Add(time.Hour) {
		if name := FileName(t); name > last {
			return name
		}
	}
}

func baseName(path string) string { return filepath.Base(path) }
