package timing

import (
	"encoding/base64"
	"errors"
	"strings"
)

// handleVersion is the only recall handle version (RecallMessageHandle.HandleV1).
const handleVersion = "v1"

// Handle is a decoded recall handle: which message of which topic on which broker, due when.
type Handle struct {
	Topic      string
	BrokerName string
	// Timestamp is the delivery time as the handle spells it (ms; TIMER_OUT_MS + 1).
	Timestamp string
	// MessageID is the message's UNIQ_KEY.
	MessageID string
}

// errBadHandle is Java's DecoderException remark.
var errBadHandle = errors.New("recall handle is invalid")

// EncodeHandle is RecallMessageHandle.HandleV1.buildHandle: "v1 topic brokerName timestamp
// messageId" in URL-safe base64 with padding.
func EncodeHandle(h Handle) string {
	raw := strings.Join([]string{handleVersion, h.Topic, h.BrokerName, h.Timestamp, h.MessageID}, " ")
	return base64.URLEncoding.EncodeToString([]byte(raw))
}

// DecodeHandle is RecallMessageHandle.decodeHandle: padding is optional (Java's URL decoder
// accepts both), fields past the fifth are ignored.
func DecodeHandle(s string) (Handle, error) {
	if s == "" {
		return Handle{}, errBadHandle
	}
	raw, err := base64.URLEncoding.DecodeString(s)
	if err != nil {
		raw, err = base64.RawURLEncoding.DecodeString(s)
	}
	if err != nil {
		return Handle{}, errBadHandle
	}
	items := strings.Split(strings.TrimRight(string(raw), " "), " ")
	if items[0] != handleVersion || len(items) < 5 || !validMessageID(items[4]) {
		return Handle{}, errBadHandle
	}
	return Handle{Topic: items[1], BrokerName: items[2], Timestamp: items[3], MessageID: items[4]}, nil
}

// maxMessageIDLength bounds a handle's message id; clients' UNIQ_KEYs are 32 hex digits.
const maxMessageIDLength = 128

// validMessageID reports whether id can be a message's UNIQ_KEY as a recall stores it in a
// message's properties and answers it: 1 to 128 printable ASCII characters, none a blank or a
// property separator.
func validMessageID(id string) bool {
	if id == "" || len(id) > maxMessageIDLength {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; c <= ' ' || c > '~' {
			return false
		}
	}
	return true
}
