package transaction

import (
	"net/netip"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

func props(kv ...string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return message.EncodeProperties(m)
}

func TestIsHalfSend(t *testing.T) {
	for _, tc := range []struct {
		name    string
		props   string
		retries int32
		want    bool
	}{
		{"TRAN_MSG=true", props("TRAN_MSG", "true"), 0, true},
		{"any case, as Boolean.parseBoolean", props("TRAN_MSG", "TRUE"), 0, true},
		{"TRAN_MSG=false", props("TRAN_MSG", "false"), 0, false},
		{"TRAN_MSG=yes is not true", props("TRAN_MSG", "yes"), 0, false},
		{"no TRAN_MSG", props("KEYS", "k"), 0, false},
		{"a retry with a delay (clients before 4.6.1) is not a half", props("TRAN_MSG", "true", "DELAY", "3"), 1, false},
		{"a retry without a delay still is", props("TRAN_MSG", "true"), 1, true},
		{"a first send with a delay still is", props("TRAN_MSG", "true", "DELAY", "3"), 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, IsHalfSend(tc.props, tc.retries))
		})
	}
}

func TestToHalfAndCommitted(t *testing.T) {
	born := netip.MustParseAddrPort("10.0.0.9:4000")
	m := &store.Message{Topic: "Orders", QueueID: 3, Flag: 7, SysFlag: message.SysFlagTransactionPrep | message.SysFlagMultiTags,
		BornTimestamp: 1234, BornHost: born, ReconsumeTimes: 0, Body: []byte("b"),
		Properties: props("TRAN_MSG", "true", "PGROUP", "PG", "UNIQ_KEY", "U1", "TAGS", "t", "DELAY", "2")}
	toHalf(m)
	require.Equal(t, systopic.TransHalf, m.Topic)
	require.Equal(t, int32(0), m.QueueID)
	require.Equal(t, message.SysFlagTransactionNot, message.TransactionType(m.SysFlag), "a half gets queue and index entries")
	require.Equal(t, message.SysFlagMultiTags, m.SysFlag&message.SysFlagMultiTags, "other bits stay")
	p := message.ParseProperties(m.Properties)
	require.Equal(t, "Orders", p[message.PropertyRealTopic])
	require.Equal(t, "3", p[message.PropertyRealQueueID])
	require.Equal(t, "U1", p[message.PropertyUniqClientMessageID])

	half := &message.MessageExt{Message: *m, Props: p}
	half.PhysicalOffset, half.QueueOffset = 4096, 5
	c, err := committed(half, 18)
	require.NoError(t, err)
	require.Equal(t, message.ScheduleTopic, c.Topic, "a DELAY level applies once committed")
	require.Equal(t, int32(1), c.QueueID, "level 2 is queue 1")
	require.Equal(t, message.SysFlagTransactionCommit, message.TransactionType(c.SysFlag))
	require.Equal(t, int64(4096), c.PreparedTransactionOffset)
	cp := message.ParseProperties(c.Properties)
	require.Equal(t, "Orders", cp[message.PropertyRealTopic], "REAL_TOPIC now names the delay's target")
	require.Equal(t, "true", cp[message.PropertyTransactionPrepared], "TRAN_MSG stays, as in Java 4.9")
	require.Equal(t, "U1", cp[message.PropertyUniqClientMessageID])

	delete(half.Props, message.PropertyDelayTimeLevel)
	c, err = committed(half, 18)
	require.NoError(t, err)
	require.Equal(t, "Orders", c.Topic)
	require.Equal(t, int32(3), c.QueueID)
	require.Equal(t, int32(7), c.Flag)
	require.Equal(t, born, c.BornHost)
	require.Equal(t, int64(1234), c.BornTimestamp)
	cp = message.ParseProperties(c.Properties)
	require.NotContains(t, cp, message.PropertyRealTopic)
	require.NotContains(t, cp, message.PropertyRealQueueID)

	for _, bad := range []map[string]string{
		{message.PropertyRealQueueID: "0"},
		{message.PropertyRealTopic: "T", message.PropertyRealQueueID: "x"},
		{message.PropertyRealTopic: "T", message.PropertyRealQueueID: "-1"},
	} {
		_, err := committed(&message.MessageExt{Props: bad}, 18)
		require.Error(t, err, "%v", bad)
	}
}

func TestOpMessage(t *testing.T) {
	m := opMessage(0, 42, netip.MustParseAddrPort("127.0.0.1:10911"), 99, "UQ")
	require.Equal(t, systopic.TransOpHalf, m.Topic)
	require.Equal(t, "42", string(m.Body))
	p := message.ParseProperties(m.Properties)
	require.Equal(t, RemoveTag, p[message.PropertyTags])
	require.Equal(t, "UQ", p[message.PropertyUniqClientMessageID])

	b := make([]byte, m.EncodedSize())
	_, err := message.Encode(b, m)
	require.NoError(t, err)
	off, err := parseOp(b)
	require.NoError(t, err)
	require.Equal(t, int64(42), off)

	m.Body = []byte("4x")
	b = make([]byte, m.EncodedSize())
	_, err = message.Encode(b, m)
	require.NoError(t, err)
	_, err = parseOp(b)
	require.ErrorContains(t, err, "not a half offset")
}

func TestNextCheckTimes(t *testing.T) {
	for _, tc := range []struct {
		prop    string
		want    int
		discard bool
	}{{"", 1, false}, {"1", 2, false}, {"14", 15, false}, {"15", 16, true}, {"99", 100, true}, {"junk", 0, false}} {
		p := map[string]string{}
		if tc.prop != "" {
			p[message.PropertyTransactionCheckTimes] = tc.prop
		}
		n, d := nextCheckTimes(p, 15)
		require.Equal(t, tc.want, n, "TRANSACTION_CHECK_TIMES=%q", tc.prop)
		require.Equal(t, tc.discard, d, "TRANSACTION_CHECK_TIMES=%q", tc.prop)
	}
	require.Equal(t, int64(6000), immunityMillis("-1", 6000))
	require.Equal(t, int64(6000), immunityMillis("x", 6000))
	require.Equal(t, strconv.Itoa(60000), strconv.FormatInt(immunityMillis("60", 6000), 10))
}

// FuzzParseOp: whatever record the op queue holds, reading it neither panics nor accepts a record
// that is not a well-formed "d" op message.
func FuzzParseOp(f *testing.F) {
	for _, body := range []string{"0", "42", "-1", "x", ""} {
		m := opMessage(0, 0, netip.MustParseAddrPort("127.0.0.1:10911"), 1, "U")
		m.Body = []byte(body)
		b := make([]byte, m.EncodedSize())
		if _, err := message.Encode(b, m); err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{0, 0, 0, 8, 0xDA, 0xA3, 0x20, 0xA7})
	f.Fuzz(func(t *testing.T, rec []byte) {
		off, err := parseOp(rec)
		if err != nil {
			return
		}
		v, perr := message.Parse(rec)
		if perr != nil {
			t.Fatalf("accepted an unparsable record: %v", perr)
		}
		if tags, _ := message.LookupProperty(v.Properties(), message.PropertyTags); string(tags) != RemoveTag {
			t.Fatalf("accepted an op message tagged %q", tags)
		}
		if n, err := strconv.ParseInt(string(v.Body()), 10, 64); err != nil || n != off {
			t.Fatalf("body %q read as %d", v.Body(), off)
		}
	})
}
