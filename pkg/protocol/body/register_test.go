package body

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"
)

func sampleRegisterBody() *RegisterBrokerBody {
	tbw := NewTopicConfig("TBW102")
	tbw.Perm = 7
	tbw.ReadQueueNums, tbw.WriteQueueNums = 8, 8
	return &RegisterBrokerBody{
		TopicConfigSerializeWrapper: TopicConfigSerializeWrapper{
			DataVersion: DataVersion{Counter: 7, Timestamp: 1700000000000},
			TopicConfigTable: map[string]TopicConfig{
				"TBW102": tbw,
				"t1":     NewTopicConfig("t1"),
			},
		},
		FilterServerList: []string{},
	}
}

func TestRegisterBrokerBodyJSONGolden(t *testing.T) {
	got, err := sampleRegisterBody().Encode(false)
	require.NoError(t, err)
	want := `{"filterServerList":[],"topicConfigSerializeWrapper":{"dataVersion":{"counter":7,"timestamp":1700000000000},"topicConfigTable":{` +
		`"TBW102":{"order":false,"perm":7,"readQueueNums":8,"topicFilterType":"SINGLE_TAG","topicName":"TBW102","topicSysFlag":0,"writeQueueNums":8},` +
		`"t1":{"order":false,"perm":6,"readQueueNums":16,"topicFilterType":"SINGLE_TAG","topicName":"t1","topicSysFlag":0,"writeQueueNums":16}}}}`
	require.Equal(t, want, string(got))
}

func TestRegisterBrokerBodyRoundTrip(t *testing.T) {
	for _, compressed := range []bool{false, true} {
		in := sampleRegisterBody()
		data, err := in.Encode(compressed)
		require.NoError(t, err)
		out, err := DecodeRegisterBrokerBody(data, compressed)
		require.NoError(t, err)
		require.Equal(t, in, out, "compressed=%v", compressed)
	}
}

// javaCompressed builds the 4.9 compressed form by hand: no mapping count at the end.
func javaCompressed(t *testing.T, dv string, topics []string, filters string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zlib.NewWriter(&buf)
	part := func(s string) {
		require.NoError(t, binary.Write(zw, binary.BigEndian, int32(len(s))))
		_, err := zw.Write([]byte(s))
		require.NoError(t, err)
	}
	part(dv)
	require.NoError(t, binary.Write(zw, binary.BigEndian, int32(len(topics))))
	for _, tp := range topics {
		part(tp)
	}
	part(filters)
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

func TestDecodeJavaCompressedRegisterBody(t *testing.T) {
	data := javaCompressed(t, `{"counter":3,"timestamp":1700000000000}`,
		[]string{"TopicTest 4 4 6 SINGLE_TAG", "TBW102 8 8 7 SINGLE_TAG", `attr 2 2 6 MULTI_TAG {"+message.type":"NORMAL x"}`},
		`["10.0.0.1:30000"]`)
	r, err := DecodeRegisterBrokerBody(data, true)
	require.NoError(t, err)
	w := r.TopicConfigSerializeWrapper
	require.Equal(t, DataVersion{Counter: 3, Timestamp: 1700000000000}, w.DataVersion)
	require.Len(t, w.TopicConfigTable, 3)
	require.Equal(t, TopicConfig{TopicName: "TopicTest", ReadQueueNums: 4, WriteQueueNums: 4, Perm: 6, TopicFilterType: SingleTag}, w.TopicConfigTable["TopicTest"])
	require.Equal(t, map[string]string{"+message.type": "NORMAL x"}, w.TopicConfigTable["attr"].Attributes)
	require.Equal(t, MultiTag, w.TopicConfigTable["attr"].TopicFilterType)
	require.Equal(t, []string{"10.0.0.1:30000"}, r.FilterServerList)
}

func TestDecodeRegisterBodyErrors(t *testing.T) {
	r, err := DecodeRegisterBrokerBody(nil, true)
	require.NoError(t, err)
	require.Equal(t, DataVersion{}, r.TopicConfigSerializeWrapper.DataVersion)

	bad := [][]byte{
		[]byte("not zlib"),
		javaCompressed(t, `{"counter":`, nil, `[]`),
		javaCompressed(t, `{}`, []string{"only 3 fields"}, `[]`),
		javaCompressed(t, `{}`, []string{"t x 4 6 SINGLE_TAG"}, `[]`),
		javaCompressed(t, `{}`, []string{"t 4 4 6 NO_SUCH_TYPE"}, `[]`),
		javaCompressed(t, `{}`, nil, `{`),
	}
	for i, b := range bad {
		_, err := DecodeRegisterBrokerBody(b, true)
		require.Error(t, err, "case %d", i)
	}
	// A truncated stream: the topic count promises more than there is.
	full := javaCompressed(t, `{}`, []string{"t 4 4 6 SINGLE_TAG"}, `[]`)
	var buf bytes.Buffer
	zw := zlib.NewWriter(&buf)
	_, _ = zw.Write([]byte{0, 0, 0, 2, '{', '}', 0, 0, 0, 9})
	require.NoError(t, zw.Close())
	_, err = DecodeRegisterBrokerBody(buf.Bytes(), true)
	require.Error(t, err)
	_, err = DecodeRegisterBrokerBody(full[:len(full)/2], true)
	require.Error(t, err)
	_, err = DecodeRegisterBrokerBody([]byte(`{"topicConfigSerializeWrapper":`), false)
	require.Error(t, err)
}

func TestTopicConfigCompact(t *testing.T) {
	tc := NewTopicConfig("t")
	got, err := tc.EncodeCompact()
	require.NoError(t, err)
	require.Equal(t, "t 16 16 6 SINGLE_TAG", string(got))
	tc.Attributes = map[string]string{"k": "v"}
	got, err = tc.EncodeCompact()
	require.NoError(t, err)
	require.Equal(t, `t 16 16 6 SINGLE_TAG {"k":"v"}`, string(got))
	back, err := DecodeTopicConfigCompact(string(got))
	require.NoError(t, err)
	require.Equal(t, tc, back)
}

func zlibBytes(raw []byte) []byte {
	var buf bytes.Buffer
	zw := zlib.NewWriter(&buf)
	_, _ = zw.Write(raw)
	_ = zw.Close()
	return buf.Bytes()
}
