package processor

import (
	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// fail returns an error answered with code and a formatted remark, for handlers not yet moved to
// a service: it is the outcome whose code is code.
func fail(code protocol.ResponseCode, format string, args ...any) error {
	for k, c := range responseCodes {
		if c == code {
			return outcome.Errorf(outcome.Kind(k), format, args...)
		}
	}
	return outcome.Errorf(outcome.SystemError, format, args...)
}
