package mqadmin

import (
	"bytes"
	"compress/zlib"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/admin/admintest"
	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// TestQueryMsgByID: the offset id leads straight to the storing broker, no name server needed;
// every field is printed, the body as text. Several ids print several messages; a bad one fails.
func TestQueryMsgByID(t *testing.T) {
	cl := admintest.Start(t)
	b := cl.Brokers[0]
	cl.CreateTopic(t, "ById", 2)
	sent := admintest.Send(t, b, brokertest.Msg{Topic: "ById", QueueID: 1, Body: []byte("hello, world"), Tags: "TagA",
		Keys: "k1 k2", Props: map[string]string{message.PropertyUniqClientMessageID: "0A00000100000000000000000000FFFF"}})
	other := admintest.Send(t, b, brokertest.Msg{Topic: "ById", QueueID: 0, Body: []byte{0, 1, 2, 0xff}})
	_, phyOff, err := message.ParseOffsetMsgID(sent.OffsetMsgID)
	require.NoError(t, err)
	stored := b.Store().LookMessageByOffset(phyOff)
	require.NotNil(t, stored)

	out := mustRunAdmin(t, "queryMsgById", "-i", sent.OffsetMsgID)
	require.Equal(t, []string{
		"OffsetID:            " + sent.OffsetMsgID,
		"Topic:               ById",
		"Tags:                [TagA]",
		"Keys:                [k1 k2]",
		"Queue ID:            1",
		"Queue Offset:        0",
		"CommitLog Offset:    " + strconv.FormatInt(phyOff, 10),
		"Reconsume Times:     0",
		"Born Timestamp:      " + humanTime(stored.BornTimestamp),
		"Store Timestamp:     " + humanTime(stored.StoreTimestamp),
		"Born Host:           " + stored.BornHost.String(),
		"Store Host:          " + admintest.Addr(b),
		"System Flag:         0",
		"Properties:          " + propertiesText(stored.Props),
		"Message Body:        hello, world",
	}, lines(out))

	require.Contains(t, out, "KEYS=k1 k2, MSG_REGION=DefaultRegion, TAGS=TagA, TRACE_ON=false, UNIQ_KEY=0A00000100000000000000000000FFFF")

	out = mustRunAdmin(t, "queryMsgById", "-i", sent.OffsetMsgID+", "+other.OffsetMsgID)
	require.Contains(t, out, "Message Body:        hello, world\n\nOffsetID:            "+other.OffsetMsgID+"\n")
	require.Contains(t, out, "Message Body:        (4 bytes, not text) 000102ff\n")

	_, errOut, err := runAdmin(t, "queryMsgById", "-i", "XYZ")
	require.Error(t, err)
	require.Contains(t, errOut, `"XYZ" is not an offset message id`)
}

// TestBodyText: printable text as it is, binary as hex, compressed bodies inflated first.
func TestBodyText(t *testing.T) {
	require.Equal(t, "line 1\nline 2\tü", bodyText([]byte("line 1\nline 2\tü"), false))
	require.Equal(t, "(3 bytes, not text) 41001b", bodyText([]byte{'A', 0, 0x1b}, false))
	require.Equal(t, "(2 bytes, not text) c328", bodyText([]byte{0xc3, 0x28}, false))

	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	_, err := zw.Write([]byte("packed text"))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	require.Equal(t, "packed text", bodyText(z.Bytes(), true))
	require.Contains(t, bodyText([]byte{1, 2, 3}, true), "(3 bytes, not text, compressed but ")

	long := bytes.Repeat([]byte{0}, maxHexBody+1)
	require.Contains(t, bodyText(long, false), "(257 bytes, not text) 0000")
	require.Contains(t, bodyText(long, false), "00...")
}

// FuzzBodyText: any body, compressed or not, renders without panicking.
func FuzzBodyText(f *testing.F) {
	f.Add([]byte("hello"), false)
	f.Add([]byte{0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01}, true)
	f.Add([]byte{0xff, 0x00}, true)
	f.Fuzz(func(t *testing.T, b []byte, compressed bool) {
		if s := bodyText(b, compressed); s == "" && len(b) > 0 && !compressed {
			t.Fatalf("empty rendering of %d bytes", len(b))
		}
	})
}

func TestPropertiesText(t *testing.T) {
	require.Equal(t, "{}", propertiesText(nil))
	require.Equal(t, "{A=1, B=x y}", propertiesText(map[string]string{"B": "x y", "A": "1"}))
}

func TestFormatHelpers(t *testing.T) {
	require.Equal(t, "RW-", permString(6))
	require.Equal(t, "R--", permString(4))
	require.Equal(t, "-WX", permString(3))
	require.Equal(t, "12.0", javaDouble(12))
	require.Equal(t, "0.25", javaDouble(0.25))
	require.Equal(t, "", humanTime(0))
	require.Equal(t, "", dateTime(-1))
	require.True(t, parseJavaBool(" TRUE "))
	require.False(t, parseJavaBool("yes"))
	require.Equal(t, 12.5, firstTps("12.5 3.0 1.0"))
	require.Zero(t, firstTps(""))
}
