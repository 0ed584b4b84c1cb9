package mqbench

import (
	"context"
	"errors"
	"maps"
	"sync"
	"sync/atomic"

	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// codeCounter counts responses by code and failed calls by cause. Add is
// lock-free for codes 0..1023.
type codeCounter struct {
	small [1024]atomic.Int64
	mu    sync.Mutex
	other map[string]int64
}

func (c *codeCounter) add(code protocol.ResponseCode) {
	if code >= 0 && int(code) < len(c.small) {
		c.small[code].Add(1)
		return
	}
	c.addName(code.String())
}

func (c *codeCounter) addName(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.other == nil {
		c.other = map[string]int64{}
	}
	c.other[name]++
}

// addErr counts a call that got no response.
func (c *codeCounter) addErr(err error) { c.addName(errKind(err)) }

// errKind names the cause of a failed call for the report.
func errKind(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "error: timeout"
	case errors.Is(err, context.Canceled):
		return "error: cancelled"
	case errors.Is(err, remoting.ErrConnClosed):
		return "error: connection closed"
	case errors.Is(err, protocol.ErrNotEncodable):
		return "error: request not encodable"
	}
	return "error: " + err.Error()
}

// snapshot returns the counts by name (the Java name of response codes).
func (c *codeCounter) snapshot() map[string]int64 {
	out := map[string]int64{}
	for code := range c.small {
		if n := c.small[code].Load(); n != 0 {
			out[protocol.ResponseCode(code).String()] += n
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	maps.Copy(out, c.other)
	return out
}

// storedCode reports whether a send response means the message was stored
// (the flush and replication statuses still mean it is in the CommitLog).
func storedCode(code protocol.ResponseCode) bool {
	switch code {
	case protocol.Success, protocol.FlushDiskTimeout, protocol.FlushSlaveTimeout, protocol.SlaveNotAvailable:
		return true
	}
	return false
}
