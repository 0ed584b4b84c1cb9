package cluster

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"net"
	"testing"

	"github.com/stretchr/testify/require"
)

// These tests check the harness's own codecs without any server binary.

func TestEncodeRequestIsGoClientJSON(t *testing.T) {
	frame, err := EncodeRequest(105, 7, map[string]string{"topic": "T"}, []byte("xy"))
	require.NoError(t, err)
	total := binary.BigEndian.Uint32(frame[0:4])
	require.Equal(t, len(frame)-4, int(total))
	word := binary.BigEndian.Uint32(frame[4:8])
	require.Zero(t, word>>24, "serialize type must be JSON")
	hlen := int(word & 0xFFFFFF)
	var h map[string]any
	require.NoError(t, json.Unmarshal(frame[8:8+hlen], &h))
	require.Equal(t, float64(105), h["code"])
	require.Equal(t, "GO", h["language"])
	require.Equal(t, float64(7), h["opaque"])
	require.Equal(t, map[string]any{"topic": "T"}, h["extFields"])
	require.Equal(t, "xy", string(frame[8+hlen:]))
}

func TestDecodeResponseJSONFlagsNonStringExtFields(t *testing.T) {
	hdr := []byte(`{"code":0,"opaque":9,"flag":1,"remark":"","extFields":{"offset":"12","queueId":3}}`)
	resp, opaque, flag, err := DecodeResponse(frameBody(0, hdr, []byte("b")))
	require.NoError(t, err)
	require.Equal(t, int32(9), opaque)
	require.Equal(t, 1, flag)
	require.Equal(t, "12", resp.ExtFields["offset"])
	require.Equal(t, "3", resp.ExtFields["queueId"])
	require.Equal(t, []string{"queueId"}, resp.NonStringExt)
	require.Equal(t, "b", string(resp.Body))
}

func TestDecodeResponseBinaryHeader(t *testing.T) {
	var h bytes.Buffer
	w := func(v any) { require.NoError(t, binary.Write(&h, binary.BigEndian, v)) }
	w(int16(17))  // code
	w(uint8(0))   // language JAVA
	w(int16(409)) // version
	w(int32(5))   // opaque
	w(int32(1))   // flag: response
	w(int32(3))
	h.WriteString("bad")
	var ext bytes.Buffer
	ew := func(v any) { require.NoError(t, binary.Write(&ext, binary.BigEndian, v)) }
	ew(int16(1))
	ext.WriteString("k")
	ew(int32(2))
	ext.WriteString("vv")
	w(int32(ext.Len()))
	h.Write(ext.Bytes())
	resp, opaque, flag, err := DecodeResponse(frameBody(1, h.Bytes(), nil))
	require.NoError(t, err)
	require.Equal(t, int32(5), opaque)
	require.Equal(t, 1, flag)
	require.Equal(t, 17, resp.Code)
	require.Equal(t, "bad", resp.Remark)
	require.Equal(t, map[string]string{"k": "vv"}, resp.ExtFields)
}

func TestLenientJSONQuotesBareNumericKeys(t *testing.T) {
	in := []byte(`{"brokerDatas":[{"brokerAddrs":{0:"127.0.0.1:10911",1:"127.0.0.1:10921"},"brokerName":"b"}],"queueDatas":[]}`)
	var route TopicRoute
	require.NoError(t, json.Unmarshal(LenientJSON(in), &route))
	require.Equal(t, "127.0.0.1:10911", route.MasterAddr("b"))
	require.Equal(t, "127.0.0.1:10921", route.BrokerDatas[0].BrokerAddrs["1"])
	quoted := []byte(`{"brokerAddrs":{"0":"127.0.0.1:1"}}`)
	require.Equal(t, quoted, LenientJSON(quoted))
}

func TestHasWhitespaceOutsideStrings(t *testing.T) {
	require.False(t, HasWhitespaceOutsideStrings([]byte(`{"a":"x y","b":[1,2]}`)))
	require.True(t, HasWhitespaceOutsideStrings([]byte(`{"a": 1}`)))
	require.False(t, HasWhitespaceOutsideStrings([]byte(`{"a":"q\" z"}`)))
}

func TestDecodeRecords(t *testing.T) {
	one := buildRecord(t, 3, 41, "TopicX", []byte("hello"), "TAGS\x01TagA\x02KEYS\x01k1 k2\x02")
	two := buildRecord(t, 3, 42, "TopicX", []byte("world!"), "")
	recs, err := DecodeRecords(append(one, two...))
	require.NoError(t, err)
	require.Len(t, recs, 2)
	require.Equal(t, int64(41), recs[0].QueueOffset)
	require.Equal(t, "hello", string(recs[0].Body))
	require.Equal(t, "TopicX", recs[0].Topic)
	require.Equal(t, "TagA", recs[0].Properties["TAGS"])
	require.Equal(t, "k1 k2", recs[0].Properties["KEYS"])
	require.Equal(t, "world!", string(recs[1].Body))

	bad := append([]byte(nil), one...)
	binary.BigEndian.PutUint32(bad[0:4], uint32(len(one)+1))
	_, err = DecodeRecords(bad)
	require.Error(t, err)
}

func TestInvokeMatchesOpaque(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	go func() {
		conn, err := l.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		f, err := readFrame(conn)
		if err != nil {
			return
		}
		hlen := int(binary.BigEndian.Uint32(f[0:4]) & 0xFFFFFF)
		var req struct {
			Opaque int32 `json:"opaque"`
		}
		if json.Unmarshal(f[4:4+hlen], &req) != nil {
			return
		}
		// A stray frame with another opaque first, then the answer.
		for _, opaque := range []int32{req.Opaque + 1000, req.Opaque} {
			hdr, _ := json.Marshal(map[string]any{"code": 0, "opaque": opaque, "flag": 1, "extFields": map[string]string{"offset": "5"}})
			f := frameBody(0, hdr, nil)
			out := make([]byte, 4, 4+len(f))
			binary.BigEndian.PutUint32(out, uint32(len(f)))
			_, _ = conn.Write(append(out, f...))
		}
	}()
	resp, err := Invoke(context.Background(), l.Addr().String(), ReqGetMaxOffset, map[string]string{"topic": "T", "queueId": "0"}, nil)
	require.NoError(t, err)
	require.Equal(t, "5", resp.ExtFields["offset"])
}

// frameBody is a frame without its length prefix.
func frameBody(typ byte, hdr, body []byte) []byte {
	out := make([]byte, 4, 4+len(hdr)+len(body))
	binary.BigEndian.PutUint32(out, uint32(typ)<<24|uint32(len(hdr)))
	return append(append(out, hdr...), body...)
}

func buildRecord(t *testing.T, queueID int32, queueOffset int64, topic string, body []byte, props string) []byte {
	var b bytes.Buffer
	w := func(v any) { require.NoError(t, binary.Write(&b, binary.BigEndian, v)) }
	total := 91 + len(body) + len(topic) + len(props)
	w(int32(total))
	w(int32(-626843481)) // magic V1
	w(int32(0))          // body CRC
	w(queueID)
	w(int32(0)) // flag
	w(queueOffset)
	w(int64(1000)) // physical offset
	w(int32(0))    // sysFlag
	w(int64(1))    // born timestamp
	b.Write([]byte{127, 0, 0, 1})
	w(int32(5555))
	w(int64(2)) // store timestamp
	b.Write([]byte{127, 0, 0, 1})
	w(int32(10911))
	w(int32(0)) // reconsume times
	w(int64(0)) // prepared transaction offset
	w(int32(len(body)))
	b.Write(body)
	b.WriteByte(byte(len(topic)))
	b.WriteString(topic)
	w(int16(len(props)))
	b.WriteString(props)
	require.Equal(t, total, b.Len())
	return b.Bytes()
}
