package protocol

import (
	"errors"
	"strconv"
	"strings"

	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// The strings through which a POP consumer learns and names what it was given (Java
// ExtraInfoUtil, protocol.md §2.10). A popped message carries a POP_CK property, its extra info:
//
//	ckQueueOffset popTime invisibleTime reviveQid retry brokerName queueId queueOffset
//
// separated by single spaces, where retry is a RetryMark. ACK_MESSAGE and
// CHANGE_MESSAGE_INVISIBLETIME send it back. A POP_MESSAGE answer carries, per queue it took
// messages from, "retry queueId startOffset" in startOffsetInfo and "retry queueId o1,o2,..." in
// msgOffsetInfo, entries separated by ';', from which the client builds each POP_CK. Orderly pops
// add orderCountInfo: "retry qo<queueId>%<queueOffset> count" per message and "retry queueId
// count" per queue.

// Retry marks: which kind of topic a message was popped from.
const (
	RetryMarkNormal  byte = '0' // the topic itself
	RetryMarkRetry   byte = '1' // its POP retry topic %RETRY%group_topic
	RetryMarkRetryV2 byte = '2' // its POP retry topic of the V2 form %RETRY%group+topic
)

// ExtraInfoSeparator separates the fields of an extra info (Java MessageConst.KEY_SEPARATOR).
const ExtraInfoSeparator = ' '

// RetryMark is the mark of a topic: V2 for a retry topic holding '+', retry for any other
// %RETRY% topic, normal otherwise.
func RetryMark(topic string) byte {
	switch {
	case systopic.IsPopRetryV2(topic):
		return RetryMarkRetryV2
	case systopic.IsRetry(topic):
		return RetryMarkRetry
	}
	return RetryMarkNormal
}

// RealTopic is the topic a message of topic and group with a retry mark was popped from.
func RealTopic(topic, group string, mark byte) string {
	switch mark {
	case RetryMarkRetry:
		return systopic.PopRetry(group, topic)
	case RetryMarkRetryV2:
		return systopic.PopRetryV2(group, topic)
	}
	return topic
}

// ExtraInfo is a parsed POP_CK.
type ExtraInfo struct {
	CkQueueOffset int64 // the first offset of the checkpoint the message belongs to
	PopTime       int64
	InvisibleTime int64
	ReviveQid     int32
	Retry         byte // a RetryMark
	BrokerName    string
	QueueID       int32
	// QueueOffset is the message's own offset; HasQueueOffset is false for the seven-field
	// form old clients build.
	QueueOffset    int64
	HasQueueOffset bool
}

// ErrExtraInfo reports an extra info that is not one.
var ErrExtraInfo = errors.New("extraInfo is not 'ckQueueOffset popTime invisibleTime reviveQid retry brokerName queueId [queueOffset]'")

// ParseExtraInfo parses a POP_CK. BrokerName is a substring of s: it allocates nothing.
func ParseExtraInfo(s string) (ExtraInfo, error) {
	var e ExtraInfo
	var f [8]string
	n, rest := 0, s
	for ; n < len(f) && rest != "" || n == 0; n++ {
		i := strings.IndexByte(rest, ExtraInfoSeparator)
		if i < 0 {
			f[n], rest = rest, ""
			continue
		}
		f[n], rest = rest[:i], rest[i+1:]
		if rest == "" {
			return e, ErrExtraInfo // a trailing separator
		}
	}
	if n < 7 || rest != "" || len(f[4]) != 1 || f[5] == "" {
		return e, ErrExtraInfo
	}
	var errs [7]error
	e.CkQueueOffset, errs[0] = strconv.ParseInt(f[0], 10, 64)
	e.PopTime, errs[1] = strconv.ParseInt(f[1], 10, 64)
	e.InvisibleTime, errs[2] = strconv.ParseInt(f[2], 10, 64)
	e.ReviveQid, errs[3] = parseI32(f[3])
	e.Retry, e.BrokerName = f[4][0], f[5]
	e.QueueID, errs[4] = parseI32(f[6])
	if n == 8 {
		e.QueueOffset, errs[5] = strconv.ParseInt(f[7], 10, 64)
		e.HasQueueOffset = true
	}
	if errors.Join(errs[:]...) != nil || e.Retry < RetryMarkNormal || e.Retry > RetryMarkRetryV2 {
		return ExtraInfo{}, ErrExtraInfo
	}
	return e, nil
}

func parseI32(s string) (int32, error) {
	v, err := strconv.ParseInt(s, 10, 32)
	return int32(v), err
}

// AppendExtraInfo appends e in its wire form; the queue offset only when HasQueueOffset.
func AppendExtraInfo(dst []byte, e *ExtraInfo) []byte {
	dst = strconv.AppendInt(dst, e.CkQueueOffset, 10)
	dst = append(dst, ExtraInfoSeparator)
	dst = strconv.AppendInt(dst, e.PopTime, 10)
	dst = append(dst, ExtraInfoSeparator)
	dst = strconv.AppendInt(dst, e.InvisibleTime, 10)
	dst = append(dst, ExtraInfoSeparator)
	dst = strconv.AppendInt(dst, int64(e.ReviveQid), 10)
	dst = append(dst, ExtraInfoSeparator, e.Retry, ExtraInfoSeparator)
	dst = append(dst, e.BrokerName...)
	dst = append(dst, ExtraInfoSeparator)
	dst = strconv.AppendInt(dst, int64(e.QueueID), 10)
	if e.HasQueueOffset {
		dst = append(dst, ExtraInfoSeparator)
		dst = strconv.AppendInt(dst, e.QueueOffset, 10)
	}
	return dst
}

// String is e's wire form.
func (e ExtraInfo) String() string { return string(AppendExtraInfo(nil, &e)) }

// appendInfoKey starts an info entry: ';' unless it is the first, the mark and the queue id.
func appendInfoKey(dst []byte, mark byte, queueID int32) []byte {
	if len(dst) > 0 {
		dst = append(dst, ';')
	}
	dst = append(dst, mark, ExtraInfoSeparator)
	dst = strconv.AppendInt(dst, int64(queueID), 10)
	return append(dst, ExtraInfoSeparator)
}

// AppendStartOffsetInfo appends a startOffsetInfo entry.
func AppendStartOffsetInfo(dst []byte, mark byte, queueID int32, startOffset int64) []byte {
	return strconv.AppendInt(appendInfoKey(dst, mark, queueID), startOffset, 10)
}

// AppendMsgOffsetInfo appends a msgOffsetInfo entry.
func AppendMsgOffsetInfo(dst []byte, mark byte, queueID int32, offsets []int64) []byte {
	dst = appendInfoKey(dst, mark, queueID)
	for i, o := range offsets {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = strconv.AppendInt(dst, o, 10)
	}
	return dst
}

// AppendQueueOrderCount appends an orderCountInfo entry for a whole queue.
func AppendQueueOrderCount(dst []byte, mark byte, queueID int32, count int) []byte {
	return strconv.AppendInt(appendInfoKey(dst, mark, queueID), int64(count), 10)
}

// AppendOffsetOrderCount appends an orderCountInfo entry for one message.
func AppendOffsetOrderCount(dst []byte, mark byte, queueID int32, offset int64, count int) []byte {
	if len(dst) > 0 {
		dst = append(dst, ';')
	}
	dst = append(dst, mark, ExtraInfoSeparator, 'q', 'o')
	dst = strconv.AppendInt(dst, int64(queueID), 10)
	dst = append(dst, '%')
	dst = strconv.AppendInt(dst, offset, 10)
	dst = append(dst, ExtraInfoSeparator)
	return strconv.AppendInt(dst, int64(count), 10)
}

// InfoKey is the key a POP client files an info entry under: "mark@queueId" (or
// "mark@qo<queueId>%<offset>" for a message's order count).
func InfoKey(mark byte, queueID string) string { return string(mark) + "@" + queueID }

// ParseInfo splits a startOffsetInfo, msgOffsetInfo or orderCountInfo into its entries by
// InfoKey, each value the entry's last field (for msgOffsetInfo, the comma-separated offsets).
// It fails on a malformed or repeated entry, as Java's parsers do. An empty string is no entries.
func ParseInfo(s string) (map[string]string, error) {
	out := map[string]string{}
	if s == "" {
		return out, nil
	}
	for _, e := range strings.Split(s, ";") {
		f := strings.Split(e, string(ExtraInfoSeparator))
		if len(f) != 3 || len(f[0]) != 1 {
			return nil, errors.New("info entry " + strconv.Quote(e) + " is not 'retry queueId value'")
		}
		key := InfoKey(f[0][0], f[1])
		if _, dup := out[key]; dup {
			return nil, errors.New("info entry " + key + " repeated")
		}
		out[key] = f[2]
	}
	return out, nil
}
