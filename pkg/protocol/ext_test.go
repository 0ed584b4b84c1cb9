package protocol

import (
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

func TestExtBasics(t *testing.T) {
	var e Ext
	if e.Len() != 0 || e.Has("topic") || e.Get("topic") != "" {
		t.Fatal("zero Ext not empty")
	}
	e.Set("topic", "T")
	e.Set("custom", "1")
	e.Set("topic", "U")
	if v, ok := e.Lookup("topic"); !ok || v != "U" || e.Len() != 2 || e.Get("custom") != "1" {
		t.Fatalf("%v", e.Map())
	}
	if got := slices.Collect(maps.Keys(e.Map())); len(got) != 2 {
		t.Fatal(got)
	}
	var order []string
	e.Range(func(k, _ string) bool { order = append(order, k); return true })
	if !slices.Equal(order, []string{"topic", "custom"}) {
		t.Fatalf("order %v", order)
	}
	c := e.Clone()
	c.Set("custom", "2")
	if e.Get("custom") != "1" || !e.Equal(NewExt(map[string]string{"custom": "1", "topic": "U"})) || e.Equal(c) {
		t.Fatal("clone shares or Equal wrong")
	}
	e.Delete("topic")
	e.Delete("none")
	if e.Has("topic") || e.Len() != 1 {
		t.Fatalf("%v", e.Map())
	}
	if NewExt(nil).fields != nil {
		t.Fatal("NewExt(nil) allocates")
	}
}

// TestExtSetFindsKnownFields: a field set by name is found by a typed header.
func TestExtSetFindsKnownFields(t *testing.T) {
	var e Ext
	e.Set("topic", "T")
	var h GetTopicStatsInfoRequestHeader
	if err := h.Decode(e); err != nil || h.Topic != "T" {
		t.Fatalf("%v %+v", err, h)
	}
}

// TestDuplicateExtFields: the last duplicate wins in both encodings, known key or not, and the
// field keeps the place of its first occurrence.
func TestDuplicateExtFields(t *testing.T) {
	pairs := [][2]string{{"topic", "A"}, {"x", "1"}, {"queueId", "1"}, {"topic", "B"}, {"x", "2"},
		{"y", "z"}, {"x", "3"}, {"topic", "C"}}
	want := [][2]string{{"topic", "C"}, {"x", "3"}, {"queueId", "1"}, {"y", "z"}}
	for _, st := range []SerializeType{JSON, RocketMQ} {
		cmd := decodeWire(t, rawFrame(st, pairs))
		var got [][2]string
		for k, v := range cmd.ExtFields.All() {
			got = append(got, [2]string{k, v})
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", st, got, want)
		}
	}
}

// TestManyDuplicateUnknownFields goes through the sorting path of dedupUnknown.
func TestManyDuplicateUnknownFields(t *testing.T) {
	var pairs [][2]string
	for i := range 3000 {
		pairs = append(pairs, [2]string{fmt.Sprintf("k%d", i%250), fmt.Sprint(i)}, [2]string{"topic", fmt.Sprint(i)})
	}
	for _, st := range []SerializeType{JSON, RocketMQ} {
		cmd := decodeWire(t, rawFrame(st, pairs))
		e := cmd.ExtFields
		if e.Len() != 251 || e.Get("topic") != "2999" || e.Get("k0") != "2750" || e.Get("k249") != "2999" {
			t.Fatalf("%s: %d fields, topic %s, k0 %s", st, e.Len(), e.Get("topic"), e.Get("k0"))
		}
		want := []string{"k0", "topic"}
		for i := 1; i < 250; i++ {
			want = append(want, fmt.Sprintf("k%d", i))
		}
		if got := slices.Collect(keys(e)); !slices.Equal(got, want) {
			t.Fatalf("%s: first occurrences out of order: %v", st, got[:5])
		}
	}
}

// rawFrame writes a request frame whose ext fields are pairs, duplicates included (which no
// Ext can hold).
func rawFrame(st SerializeType, pairs [][2]string) []byte {
	var header []byte
	if st == JSON {
		header = append(header, `{"code":10,"extFields":{`...)
		for i, p := range pairs {
			if i > 0 {
				header = append(header, ',')
			}
			header = appendJSONString(header, p[0])
			header = append(header, ':')
			header = appendJSONString(header, p[1])
		}
		header = append(header, `},"flag":0,"opaque":1}`...)
	} else {
		header, _ = appendRocketMQHeader(nil, &Command{Code: 10})
		header = header[:len(header)-4]
		var ext []byte
		for _, p := range pairs {
			ext = binary.BigEndian.AppendUint16(ext, uint16(len(p[0])))
			ext = append(ext, p[0]...)
			ext = binary.BigEndian.AppendUint32(ext, uint32(len(p[1])))
			ext = append(ext, p[1]...)
		}
		header = binary.BigEndian.AppendUint32(header, uint32(len(ext)))
		header = append(header, ext...)
	}
	frame := binary.BigEndian.AppendUint32(nil, uint32(4+len(header)))
	frame = binary.BigEndian.AppendUint32(frame, uint32(st)<<24|uint32(len(header)))
	return append(frame, header...)
}

// TestExtEncodingSorted: encoders write the fields sorted by key whatever their order.
func TestExtEncodingSorted(t *testing.T) {
	var e Ext
	for _, k := range []string{"zeta", "b", "topic", "a", "queueId"} {
		e.Set(k, strings.ToUpper(k))
	}
	got := string(appendJSONExtFields(nil, e))
	if want := `{"a":"A","b":"B","queueId":"QUEUEID","topic":"TOPIC","zeta":"ZETA"}`; got != want {
		t.Fatalf("%s", got)
	}
}
