package message

import (
	"fmt"
	"strings"
)

// MessageExt is a decoded record: every field copied out of the buffer, and the
// properties parsed into a map.
type MessageExt struct {
	Message
	StoreSize int32
	Magic     uint32
	Props     map[string]string // parsed Message.Properties
}

// Decode copies the record at the start of b into a MessageExt. With checkCRC
// the body checksum must match.
func Decode(b []byte, checkCRC bool) (*MessageExt, error) {
	v, err := Parse(b)
	if err != nil {
		return nil, err
	}
	if checkCRC && !v.CheckCRC() {
		return nil, ErrBadCRC
	}
	return v.Decode(), nil
}

// Decode copies the viewed record into a MessageExt.
func (v View) Decode() *MessageExt {
	props := string(v.Properties())
	return &MessageExt{
		Message: Message{
			Topic:                     string(v.Topic()),
			QueueID:                   v.QueueID(),
			Flag:                      v.Flag(),
			QueueOffset:               v.QueueOffset(),
			PhysicalOffset:            v.PhysicalOffset(),
			SysFlag:                   v.SysFlag(),
			BornTimestamp:             v.BornTimestamp(),
			BornHost:                  v.BornHost(),
			StoreTimestamp:            v.StoreTimestamp(),
			StoreHost:                 v.StoreHost(),
			ReconsumeTimes:            v.ReconsumeTimes(),
			PreparedTransactionOffset: v.PreparedTransactionOffset(),
			BodyCRC:                   v.BodyCRC(),
			Body:                      append([]byte(nil), v.Body()...),
			Properties:                props,
		},
		StoreSize: v.TotalSize(),
		Magic:     v.Magic(),
		Props:     ParseProperties(props),
	}
}

// DecodeAll decodes every record of a buffer of concatenated records.
func DecodeAll(buf []byte, checkCRC bool) ([]*MessageExt, error) {
	var out []*MessageExt
	it := NewIterator(buf)
	for it.Next() {
		v := it.View()
		if checkCRC && !v.CheckCRC() {
			return out, fmt.Errorf("record at %d: %w", it.Offset()-len(v.Bytes()), ErrBadCRC)
		}
		out = append(out, v.Decode())
	}
	if err := it.Err(); err != nil {
		return out, fmt.Errorf("record at %d: %w", it.Offset(), err)
	}
	return out, nil
}

// Tags is the TAGS property, "" when absent.
func (m *MessageExt) Tags() string { return m.Props[PropertyTags] }

// Keys is the KEYS property split on spaces, empty elements dropped.
func (m *MessageExt) Keys() []string { return SplitKeys(m.Props[PropertyKeys]) }

// SplitKeys splits a KEYS value on single spaces and drops empty elements, as
// Java's index service does.
func SplitKeys(keys string) []string {
	var out []string
	for _, k := range strings.Split(keys, KeySeparator) {
		if k != "" {
			out = append(out, k)
		}
	}
	return out
}

// UniqKey is the UNIQ_KEY property, "" when absent.
func (m *MessageExt) UniqKey() string { return m.Props[PropertyUniqClientMessageID] }

// OffsetMsgID is the record's offset message id.
func (m *MessageExt) OffsetMsgID() string { return OffsetMsgID(m.StoreHost, m.PhysicalOffset) }
