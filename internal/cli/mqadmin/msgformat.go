package mqadmin

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// How Java prints the messages and queues the pull-based commands (printMsg, printMsgByQueue,
// consumeMessage) show.

// msgID is what Java's client calls a pulled message's id: its UNIQ_KEY, else its offset id.
func msgID(m *message.MessageExt) string {
	if id := m.UniqKey(); id != "" {
		return id
	}
	return m.OffsetMsgID()
}

// mqString is Java's MessageQueue.toString.
func mqString(mq body.MessageQueue) string {
	return fmt.Sprintf("MessageQueue [topic=%s, brokerName=%s, queueId=%d]", mq.Topic, mq.BrokerName, mq.QueueID)
}

// javaSocket is Java's InetSocketAddress.toString of an address without a host name: "/ip:port".
func javaSocket(a netip.AddrPort) string {
	if !a.IsValid() {
		return "null"
	}
	return "/" + a.String()
}

// javaBytes is Java's Arrays.toString of a byte array: signed values, "[104, -1]".
func javaBytes(b []byte) string {
	var sb strings.Builder
	sb.WriteByte('[')
	for i, c := range b {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(strconv.Itoa(int(int8(c))))
	}
	sb.WriteByte(']')
	return sb.String()
}

// javaMessage is Java's MessageExt.toString of a pulled message (brokerName is the queue's).
func javaMessage(m *message.MessageExt, brokerName string) string {
	return fmt.Sprintf("MessageExt [brokerName=%s, queueId=%d, storeSize=%d, queueOffset=%d, sysFlag=%d, bornTimestamp=%d, "+
		"bornHost=%s, storeTimestamp=%d, storeHost=%s, msgId=%s, commitLogOffset=%d, bodyCRC=%d, reconsumeTimes=%d, "+
		"preparedTransactionOffset=%d, toString()=Message{topic='%s', flag=%d, properties=%s, body=%s, transactionId='null'}]",
		brokerName, m.QueueID, m.StoreSize, m.QueueOffset, m.SysFlag, m.BornTimestamp, javaSocket(m.BornHost),
		m.StoreTimestamp, javaSocket(m.StoreHost), m.OffsetMsgID(), m.PhysicalOffset, m.BodyCRC, m.ReconsumeTimes,
		m.PreparedTransactionOffset, m.Topic, m.Flag, propertiesText(m.Props), javaBytes(plainBody(m)))
}

// plainBody is the message body, inflated when the producer compressed it (as Java's client
// does on receipt); a body that does not inflate is shown as it is.
func plainBody(m *message.MessageExt) []byte {
	if m.SysFlag&message.SysFlagCompressed == 0 {
		return m.Body
	}
	if b, err := inflate(m.Body); err == nil {
		return b
	}
	return m.Body
}

// charsetDecoder turns a body into text in one of the charsets -c and -f name: UTF-8 (Java's
// default) or ISO-8859-1; invalid UTF-8 becomes U+FFFD, as in Java.
func charsetDecoder(name string) (func([]byte) string, error) {
	switch strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(name), "_", "-")) {
	case "", "UTF-8", "UTF8":
		return func(b []byte) string { return strings.ToValidUTF8(string(b), string(utf8.RuneError)) }, nil
	case "ISO-8859-1", "LATIN1", "ISO8859-1":
		return func(b []byte) string {
			r := make([]rune, len(b))
			for i, c := range b {
				r[i] = rune(c)
			}
			return string(r)
		}, nil
	}
	return nil, fmt.Errorf("charset %q is not supported (UTF-8 or ISO-8859-1)", name)
}

// parseJavaTime reads the time flags of printMsg, printMsgByQueue and consumeMessage:
// milliseconds since the epoch, or yyyy-MM-dd#HH:mm:ss:SSS in local time.
func parseJavaTime(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "now" {
		return 0, fmt.Errorf("timestamp %q is neither milliseconds since the epoch nor yyyy-MM-dd#HH:mm:ss:SSS", s)
	}
	return parseResetTime(s, time.Local)
}
