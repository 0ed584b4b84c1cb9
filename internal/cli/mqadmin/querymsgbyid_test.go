package mqadmin

import (
	"bytes"
	"compress/zlib"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/admin/admintest"
	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// TestQueryMsgByID: the offset id leads straight to the storing broker, no name server needed;
// every field is printed as Java does, the body goes to a file (and is printed with -f), then each
// consumer group's track. Several ids print several messages; -t also finds a unique key; a bad id
// fails.
func TestQueryMsgByID(t *testing.T) {
	cl := admintest.Start(t)
	b := cl.Brokers[0]
	cl.CreateTopic(t, "ById", 2)
	const uniq = "0A00000100000000000000000000FFFF"
	sent := admintest.Send(t, b, brokertest.Msg{Topic: "ById", QueueID: 1, Body: []byte("hello, world"), Tags: "TagA",
		Keys: "k1 k2", Props: map[string]string{message.PropertyUniqClientMessageID: uniq}})
	other := admintest.Send(t, b, brokertest.Msg{Topic: "ById", QueueID: 0, Body: []byte{0, 1, 2, 0xff}})
	_, phyOff, err := message.ParseOffsetMsgID(sent.OffsetMsgID)
	require.NoError(t, err)
	stored := b.Store().LookMessageByOffset(phyOff)
	require.NotNil(t, stored)

	env := testEnv(t)
	out, errOut, err := runAdminEnv(t, env, "queryMsgById", "-i", sent.OffsetMsgID, "-n", cl.NamesrvAddr)
	require.NoError(t, err, errOut)
	bodyPath := filepath.Join(env.tmpDir, "msgbodys", uniq)
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
		"Message Body Path:   " + bodyPath,
		"",
		"",
		"WARN: No Consumer",
	}, lines(out))
	require.Contains(t, out, "KEYS=k1 k2, TAGS=TagA, UNIQ_KEY="+uniq)
	data, err := os.ReadFile(bodyPath)
	require.NoError(t, err)
	require.Equal(t, "hello, world", string(data))

	// A consumer group of the topic: its track says whether it consumed the message.
	conn := admintest.Heartbeat(t, b, "10.1.1.1@7", "ByIdGroup", map[string]string{"ById": "TagA"})
	defer conn.Close()
	admintest.CommitOffset(t, b, "ByIdGroup", "ById", 1, 1)
	cl.WaitRoute(t, "%RETRY%ByIdGroup")
	out = mustRunAdmin(t, "queryMsgById", "-i", sent.OffsetMsgID+", "+other.OffsetMsgID, "-f", "UTF-8", "-n", cl.NamesrvAddr)
	require.Contains(t, out, "Message Body:        hello, world\n\n\n"+
		"MessageTrack [consumerGroup=ByIdGroup, trackType=CONSUMED, exceptionDesc=null]\nOffsetID:            "+other.OffsetMsgID+"\n")
	require.Contains(t, out, "Tags:                [null]\nKeys:                [null]\n")
	require.Contains(t, out, "MessageTrack [consumerGroup=ByIdGroup, trackType=NOT_CONSUME_YET, exceptionDesc=null]\n")

	// With -t, a unique key.
	out = mustRunAdmin(t, "queryMsgById", "-i", uniq, "-t", "ById", "-n", cl.NamesrvAddr)
	require.Contains(t, out, "OffsetID:            "+sent.OffsetMsgID+"\n")

	_, errOut, err = runAdmin(t, "queryMsgById", "-i", "XYZ")
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
