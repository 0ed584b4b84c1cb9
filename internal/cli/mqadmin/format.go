package mqadmin

import (
	"bytes"
	"compress/zlib"
	"encoding/hex"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// humanTime is Java's UtilAll.timeMillisToHumanString2 ("2006-01-02 15:04:05,000", local time);
// "" for no time.
func humanTime(ms int64) string {
	if ms <= 0 {
		return ""
	}
	return time.UnixMilli(ms).Format("2006-01-02 15:04:05,000")
}

// dateTime is Java's "yyyy-MM-dd HH:mm:ss" in local time; "" for no time.
func dateTime(ms int64) string {
	if ms <= 0 {
		return ""
	}
	return time.UnixMilli(ms).Format(time.DateTime)
}

// javaDouble prints a double as Java's Double.toString does for everyday values: at least one
// decimal ("12.0", "0.5").
func javaDouble(f float64) string {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsAny(s, ".eN") {
		s += ".0"
	}
	return s
}

// permString is Java's PermName.perm2String: "RWX" with '-' for each missing read, write or
// inherit bit.
func permString(perm int) string {
	b := []byte("---")
	if perm&4 != 0 {
		b[0] = 'R'
	}
	if perm&2 != 0 {
		b[1] = 'W'
	}
	if perm&1 != 0 {
		b[2] = 'X'
	}
	return string(b)
}

// parseJavaBool is Java's Boolean.parseBoolean: true only for "true", any case.
func parseJavaBool(s string) bool { return strings.EqualFold(strings.TrimSpace(s), "true") }

// printMessage writes one message as Java's queryMsgById does, with the body as text when it is
// printable (inflated first when the producer compressed it).
func printMessage(w io.Writer, m *message.MessageExt) {
	line := func(label, value string) { fmt.Fprintf(w, "%-20s %s\n", label, value) }
	line("OffsetID:", m.OffsetMsgID())
	line("Topic:", m.Topic)
	line("Tags:", "["+m.Tags()+"]")
	line("Keys:", "["+m.Props[message.PropertyKeys]+"]")
	line("Queue ID:", strconv.Itoa(int(m.QueueID)))
	line("Queue Offset:", strconv.FormatInt(m.QueueOffset, 10))
	line("CommitLog Offset:", strconv.FormatInt(m.PhysicalOffset, 10))
	line("Reconsume Times:", strconv.Itoa(int(m.ReconsumeTimes)))
	line("Born Timestamp:", humanTime(m.BornTimestamp))
	line("Store Timestamp:", humanTime(m.StoreTimestamp))
	line("Born Host:", m.BornHost.String())
	line("Store Host:", m.StoreHost.String())
	line("System Flag:", strconv.Itoa(int(m.SysFlag)))
	line("Properties:", propertiesText(m.Props))
	line("Message Body:", bodyText(m.Body, m.SysFlag&message.SysFlagCompressed != 0))
}

// propertiesText is a properties map as Java prints one, {k1=v1, k2=v2}, keys sorted.
func propertiesText(props map[string]string) string {
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k + "=" + props[k])
	}
	b.WriteByte('}')
	return b.String()
}

// Limits on what printMessage shows of a body.
const (
	maxInflatedBody = 16 << 20 // a compressed body is not inflated past this
	maxHexBody      = 256      // bytes of a binary body shown in hex
)

// bodyText renders a message body for a terminal: the text itself when it is valid UTF-8 without
// control characters (tabs and line breaks aside), else its length and leading bytes in hex. A
// compressed body (sysFlag bit 0, zlib) is inflated first; if that fails the raw bytes are shown.
func bodyText(body []byte, compressed bool) string {
	note := ""
	if compressed {
		if inflated, err := inflate(body); err == nil {
			body = inflated
		} else {
			note = ", compressed but " + err.Error()
		}
	}
	if printable(body) {
		return string(body)
	}
	shown := body[:min(len(body), maxHexBody)]
	more := ""
	if len(shown) < len(body) {
		more = "..."
	}
	return fmt.Sprintf("(%d bytes, not text%s) %s%s", len(body), note, hex.EncodeToString(shown), more)
}

func inflate(b []byte) ([]byte, error) {
	r, err := zlib.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	defer r.Close()
	out, err := io.ReadAll(io.LimitReader(r, maxInflatedBody+1))
	if err != nil {
		return nil, err
	}
	if len(out) > maxInflatedBody {
		return nil, fmt.Errorf("more than %d bytes", maxInflatedBody)
	}
	return out, nil
}

func printable(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for _, r := range string(b) {
		if r != '\n' && r != '\r' && r != '\t' && !unicode.IsPrint(r) && !unicode.IsSpace(r) {
			return false
		}
	}
	return true
}
