package vfstest

import (
	"io/fs"
	"path"
	"strings"
	"sync"
)

// Operation kinds, as they appear in the trace and in Rule.Kind.
const (
	OpCreate    = "create"
	OpOpen      = "open"
	OpOpenRW    = "openrw"
	OpRead      = "read"
	OpReadAt    = "readat"
	OpWrite     = "write"
	OpWriteAt   = "writeat"
	OpStat      = "stat"
	OpSync      = "sync"
	OpTruncate  = "truncate"
	OpFallocate = "fallocate"
	OpZeroRange = "zerorange"
	OpPunchHole = "punchhole"
	OpSeekData  = "seekdata"
	OpSyncFS    = "syncfs"
	OpClose     = "close"
	OpMmap      = "mmap"
	OpMsync     = "msync"
	OpMunmap    = "munmap"
	OpRemove    = "remove"
	OpRemoveAll = "removeall"
	OpRename    = "rename"
	OpMkdir     = "mkdir"
	OpReadDir   = "readdir"
	OpSyncDir   = "syncdir"
	OpLock      = "lock"
	OpStatfs    = "statfs"
)

// Op is one operation about to run.
type Op struct {
	Kind string
	Path string // relative to the root
	Line string // the trace line
}

// Rule selects operations and what happens to them.
type Rule struct {
	// Kind is the operation kind (OpMsync, ...); "" matches every kind.
	Kind string
	// Path is a path.Match pattern for the path relative to the root
	// ("commitlog/*"); one ending in "/" matches everything under that
	// directory; "" matches every path. For a rename the source is matched.
	Path string
	// Nth, when positive, applies the rule to the n-th matching operation
	// only (1-based); 0 applies it to every match.
	Nth int
	// Before, if set, runs before a selected operation (outside the FS's
	// lock): a slow disk sleeps, a gated one waits on a channel.
	Before func(Op)
	// Err, if set, is returned (wrapped in an *fs.PathError) by a selected
	// operation instead of performing it.
	Err error
}

type rule struct {
	Rule
	seen int // matching operations so far
}

func (r *rule) match(op Op) bool {
	if r.Kind != "" && r.Kind != op.Kind {
		return false
	}
	switch {
	case r.Path == "":
	case strings.HasSuffix(r.Path, "/"):
		if !strings.HasPrefix(op.Path, r.Path) {
			return false
		}
	default:
		if ok, _ := path.Match(r.Path, op.Path); !ok {
			return false
		}
	}
	r.seen++
	return r.Nth <= 0 || r.seen == r.Nth
}

type rules struct {
	mu   sync.Mutex
	list []*rule
}

// Inject adds a rule; the returned function removes it.
func (f *FS) Inject(r Rule) (remove func()) {
	rr := &rule{Rule: r}
	f.rules.mu.Lock()
	f.rules.list = append(f.rules.list, rr)
	f.rules.mu.Unlock()
	return func() {
		f.rules.mu.Lock()
		defer f.rules.mu.Unlock()
		for i, x := range f.rules.list {
			if x == rr {
				f.rules.list = append(f.rules.list[:i:i], f.rules.list[i+1:]...)
				return
			}
		}
	}
}

// Fail makes the operations of kind on paths matching pattern fail with err:
// every one when nth is 0, else only the nth. The returned function removes
// the rule.
func (f *FS) Fail(kind, pattern string, nth int, err error) (remove func()) {
	return f.Inject(Rule{Kind: kind, Path: pattern, Nth: nth, Err: err})
}

// apply runs the rules matching op: the Before functions, then the first
// error. The error is wrapped as the os package wraps system call errors, so
// errors.Is(err, syscall.ENOSPC) holds.
func (f *FS) apply(op Op) error {
	f.rules.mu.Lock()
	var before []func(Op)
	var err error
	for _, r := range f.rules.list {
		if !r.match(op) {
			continue
		}
		if r.Before != nil {
			before = append(before, r.Before)
		}
		if err == nil && r.Err != nil {
			err = r.Err
		}
	}
	f.rules.mu.Unlock()
	for _, b := range before {
		b(op)
	}
	if err != nil {
		return &fs.PathError{Op: op.Kind, Path: op.Path, Err: err}
	}
	return nil
}
