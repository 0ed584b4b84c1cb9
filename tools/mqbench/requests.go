package mqbench

import (
	"sync"

	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// reqPool recycles the commands of one kind of request. The transport calls a command's
// Release once it has written (or dropped) the frame and touches it no more, so the command
// comes back here with its ext fields and, when the pool owns bodies, its body buffer: the next
// request of the kind overwrites the fields (a typed header's Encode replaces values already
// there) and appends to the buffer instead of allocating either. Nothing may keep a command, or
// a body it owns, past the callback of its call.
type reqPool struct {
	code     protocol.RequestCode
	st       protocol.SerializeType
	ownsBody bool // requests build their body in the command's buffer
	pool     sync.Pool
}

func newReqPool(code protocol.RequestCode, st protocol.SerializeType, ownsBody bool) *reqPool {
	return &reqPool{code: code, st: st, ownsBody: ownsBody}
}

// get returns a command of the pool's code and encoding with the ext fields of the last request
// it carried (to be overwritten) and no body; with ownsBody, Body is the command's buffer,
// emptied.
func (p *reqPool) get() *protocol.Command {
	cmd, _ := p.pool.Get().(*protocol.Command)
	if cmd == nil {
		cmd = &protocol.Command{}
		cmd.Release = func() { p.pool.Put(cmd) }
	}
	var body []byte
	if p.ownsBody {
		body = cmd.Body[:0]
	}
	ext, release := cmd.ExtFields, cmd.Release
	*cmd = protocol.Command{Code: int32(p.code), Language: protocol.LanguageJava, Version: protocol.VersionV4_9_8,
		ExtFields: ext, Body: body, Release: release, SerializeType: p.st}
	return cmd
}
