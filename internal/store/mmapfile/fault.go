package mmapfile

import (
	"fmt"
	"runtime/debug"
)

// CatchFault runs fn with memory faults (SIGBUS/SIGSEGV on a mapping, e.g. an
// I/O error paging in a segment or a file shrunk underneath us) turned into an
// error instead of a crash. Other panics propagate.
func CatchFault(fn func() error) (err error) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			if fe, ok := r.(interface{ Addr() uintptr }); ok {
				err = fmt.Errorf("mmapfile: memory fault at %#x: %v", fe.Addr(), r)
				return
			}
			panic(r)
		}
	}()
	return fn()
}
