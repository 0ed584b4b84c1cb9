package broker

import (
	"strings"

	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// RequestCodeName is a request code as RocketMQ 5's metrics label it ("SEND_MESSAGE" → "send_message").
func RequestCodeName(code int32) string { return strings.ToLower(protocol.RequestCode(code).String()) }

// ResponseCodeName is a response code as RocketMQ 5's metrics label it ("SUCCESS" → "success").
func ResponseCodeName(code int32) string {
	return strings.ToLower(protocol.ResponseCode(code).String())
}
