package processor

import (
	"errors"
	"fmt"

	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// codeError is an outcome that maps to a specific response code and remark.
type codeError struct {
	code   protocol.ResponseCode
	remark string
}

func (e *codeError) Error() string { return fmt.Sprintf("%s: %s", e.code, e.remark) }

// fail returns an error answered with code and a formatted remark.
func fail(code protocol.ResponseCode, format string, args ...any) error {
	return &codeError{code: code, remark: fmt.Sprintf(format, args...)}
}

// respond turns a handler's outcome into the response to req: resp as is when err is nil, else
// the code the error carries, SYSTEM_ERROR naming a bad header field, or SYSTEM_ERROR with the
// error's text.
func respond(req *protocol.Command, resp *protocol.Command, err error) *protocol.Command {
	if err == nil {
		return resp
	}
	var ce *codeError
	if errors.As(err, &ce) {
		return protocol.NewResponse(req, ce.code, ce.remark)
	}
	var fe *protocol.FieldError
	if errors.As(err, &fe) {
		return protocol.NewResponse(req, protocol.SystemError, fe.Error())
	}
	return protocol.NewResponse(req, protocol.SystemError, err.Error())
}

// success is an empty SUCCESS answer.
func success(req *protocol.Command) *protocol.Command {
	return protocol.NewResponse(req, protocol.Success, "")
}
