package protocol

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden header frames under testdata/golden/headers")

// headerCase is one typed header and the command that carries it.
type headerCase struct {
	h        Header
	code     RequestCode
	response bool
}

// headerCases lists every header type of the package (TestHeaderCasesAreComplete keeps it so).
var headerCases = []headerCase{
	{&SendMessageRequestHeader{}, SendMessage, false},
	{&SendMessageRequestHeaderV2{}, SendMessageV2, false},
	{&SendMessageResponseHeader{}, SendMessage, true},
	{&PullMessageRequestHeader{}, PullMessage, false},
	{&PullMessageResponseHeader{}, PullMessage, true},
	{&ConsumerSendMsgBackRequestHeader{}, ConsumerSendMsgBack, false},
	{&EndTransactionRequestHeader{}, EndTransaction, false},
	{&CheckTransactionStateRequestHeader{}, CheckTransactionState, false},
	{&QueryMessageRequestHeader{}, QueryMessage, false},
	{&QueryMessageResponseHeader{}, QueryMessage, true},
	{&ViewMessageRequestHeader{}, ViewMessageByID, false},
	{&QueryConsumerOffsetRequestHeader{}, QueryConsumerOffset, false},
	{&QueryConsumerOffsetResponseHeader{}, QueryConsumerOffset, true},
	{&UpdateConsumerOffsetRequestHeader{}, UpdateConsumerOffset, false},
	{&GetMaxOffsetRequestHeader{}, GetMaxOffset, false},
	{&GetMaxOffsetResponseHeader{}, GetMaxOffset, true},
	{&GetMinOffsetRequestHeader{}, GetMinOffset, false},
	{&GetMinOffsetResponseHeader{}, GetMinOffset, true},
	{&GetEarliestMsgStoretimeRequestHeader{}, GetEarliestMsgStoreTime, false},
	{&GetEarliestMsgStoretimeResponseHeader{}, GetEarliestMsgStoreTime, true},
	{&SearchOffsetRequestHeader{}, SearchOffsetByTimestamp, false},
	{&SearchOffsetResponseHeader{}, SearchOffsetByTimestamp, true},
	{&GetConsumerListByGroupRequestHeader{}, GetConsumerListByGroup, false},
	{&UnregisterClientRequestHeader{}, UnregisterClient, false},
	{&NotifyConsumerIdsChangedRequestHeader{}, NotifyConsumerIdsChanged, false},
	{&GetConsumerRunningInfoRequestHeader{}, GetConsumerRunningInfo, false},
	{&ConsumeMessageDirectlyResultRequestHeader{}, ConsumeMessageDirectly, false},
	{&GetConsumerConnectionListRequestHeader{}, GetConsumerConnectionList, false},
	{&LockBatchMQRequestHeader{}, LockBatchMQ, false},
	{&UnlockBatchMQRequestHeader{}, UnlockBatchMQ, false},
	{&ResetOffsetRequestHeader{}, InvokeBrokerToResetOffset, false},
	{&GetConsumerStatusRequestHeader{}, InvokeBrokerToGetConsumerStatus, false},
	{&CreateTopicRequestHeader{}, UpdateAndCreateTopic, false},
	{&DeleteTopicRequestHeader{}, DeleteTopicInBroker, false},
	{&DeleteSubscriptionGroupRequestHeader{}, DeleteSubscriptionGroup, false},
	{&GetConsumeStatsRequestHeader{}, GetConsumeStats, false},
	{&GetTopicStatsInfoRequestHeader{}, GetTopicStatsInfo, false},
	{&QueryTopicConsumeByWhoRequestHeader{}, QueryTopicConsumeByWho, false},
	{&QueryConsumeTimeSpanRequestHeader{}, QueryConsumeTimeSpan, false},
	{&GetBrokerConfigResponseHeader{}, GetBrokerConfig, true},
	{&RecallMessageRequestHeader{}, RecallMessage, false},
	{&RecallMessageResponseHeader{}, RecallMessage, true},
	{&SessionCredentials{}, HeartBeat, false},
	{&RegisterBrokerRequestHeader{}, RegisterBroker, false},
	{&RegisterBrokerResponseHeader{}, RegisterBroker, true},
	{&UnregisterBrokerRequestHeader{}, UnregisterBroker, false},
	{&QueryDataVersionRequestHeader{}, QueryDataVersion, false},
	{&QueryDataVersionResponseHeader{}, QueryDataVersion, true},
	{&GetRouteInfoRequestHeader{}, GetRouteinfoByTopic, false},
	{&GetTopicsByClusterRequestHeader{}, GetTopicsByCluster, false},
	{&DeleteTopicFromNamesrvRequestHeader{}, DeleteTopicInNamesrv, false},
	{&PutKVConfigRequestHeader{}, PutKVConfig, false},
	{&GetKVConfigRequestHeader{}, GetKVConfig, false},
	{&GetKVConfigResponseHeader{}, GetKVConfig, true},
	{&DeleteKVConfigRequestHeader{}, DeleteKVConfig, false},
	{&GetKVListByNamespaceRequestHeader{}, GetKVListByNamespace, false},
	{&WipeWritePermOfBrokerRequestHeader{}, WipeWritePermOfBroker, false},
	{&WipeWritePermOfBrokerResponseHeader{}, WipeWritePermOfBroker, true},
	{&AddWritePermOfBrokerRequestHeader{}, AddWritePermOfBroker, false},
	{&AddWritePermOfBrokerResponseHeader{}, AddWritePermOfBroker, true},
	{&GetProducerConnectionListRequestHeader{}, GetProducerConnectionList, false},
	{&ViewBrokerStatsDataRequestHeader{}, ViewBrokerStatsData, false},
	{&GetConsumeStatsInBrokerHeader{}, GetBrokerConsumeStats, false},
}

func (hc headerCase) name() string { return reflect.TypeOf(hc.h).Elem().Name() }

// newHeader returns a zero header of hc's type.
func (hc headerCase) newHeader() Header {
	return reflect.New(reflect.TypeOf(hc.h).Elem()).Interface().(Header)
}

// sample returns a header of hc's type with every field set to a value of its own (full), or
// with only the required fields set.
func (hc headerCase) sample(full bool) Header {
	h := hc.newHeader()
	v := reflect.ValueOf(h).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		name := v.Type().Field(i).Name
		if f.Kind() == reflect.Struct { // an Opt
			if !full {
				continue
			}
			f.FieldByName("Valid").SetBool(true)
			f = f.FieldByName("V")
		}
		setSample(f, name, i)
	}
	return h
}

// setSample sets f to a value that names the field; numbers are distinct and, for a Long,
// past 32 bits.
func setSample(f reflect.Value, name string, i int) {
	switch f.Kind() {
	case reflect.String:
		f.SetString(name + "-" + string(rune('a'+i)))
	case reflect.Int32:
		f.SetInt(int64(100 + i))
	case reflect.Int64:
		f.SetInt(1<<40 + int64(i))
	case reflect.Bool:
		f.SetBool(true)
	default:
		panic(fmt.Sprintf("field %s of kind %s", name, f.Kind()))
	}
}

// command wraps ext as hc's command, stamped as this server stamps its own.
func (hc headerCase) command(ext Ext, st SerializeType) *Command {
	cmd := &Command{Code: int32(hc.code), Language: LanguageJava, Version: VersionV4_9_8, Opaque: 42,
		SerializeType: st, ExtFields: ext}
	if hc.response {
		cmd.Code, cmd.Flag = int32(Success), FlagResponse
	}
	return cmd
}

func encodeExt(h Header) Ext {
	var e Ext
	h.Encode(&e)
	return e
}

func stName(st SerializeType) string { return strings.ToLower(st.String()) }

// TestHeaderRoundTrip encodes every header, all fields set and only the required ones, in
// both encodings, compares the whole frame with its golden file and decodes it back.
func TestHeaderRoundTrip(t *testing.T) {
	for _, hc := range headerCases {
		for _, full := range []bool{true, false} {
			for _, st := range []SerializeType{JSON, RocketMQ} {
				file := fmt.Sprintf("%s_%s_%s.hex", hc.name(), kindName(full), stName(st))
				t.Run(file, func(t *testing.T) { checkHeaderRoundTrip(t, hc, full, st, file) })
			}
		}
	}
}

func checkHeaderRoundTrip(t *testing.T, hc headerCase, full bool, st SerializeType, file string) {
	h := hc.sample(full)
	ext := encodeExt(h)
	if n := reflect.ValueOf(h).Elem().NumField(); full && ext.Len() != n {
		t.Fatalf("encoded %d fields of %d", ext.Len(), n)
	}
	wire, err := EncodeCommand(hc.command(ext, st))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "golden", "headers", file)
	if *update {
		comment := fmt.Sprintf("%s, %s fields, %s header", hc.name(), kindName(full), st)
		writeGolden(t, path, comment, describeExt(ext), wire)
	}
	if want := readGolden(t, filepath.Join("headers", file)); !bytes.Equal(wire, want) {
		t.Fatalf("frame differs from %s (go test -run TestHeaderRoundTrip -update rewrites it)\ngot  %q\nwant %q", path, wire, want)
	}
	back := hc.newHeader()
	if err := back.Decode(decodeWire(t, wire).ExtFields); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, h) {
		t.Fatalf("decoded\n%+v\nwant\n%+v", back, h)
	}
}

func kindName(full bool) string {
	if full {
		return "full"
	}
	return "required"
}

// describeExt lists ext's fields sorted, as the frame carries them.
func describeExt(ext Ext) string {
	var fields []string
	for k, v := range ext.All() {
		fields = append(fields, k+"="+v)
	}
	slices.Sort(fields)
	return strings.Join(fields, ", ")
}

// writeGolden writes wire as hex, 32 bytes a line, after two comment lines.
func writeGolden(t *testing.T, path, comment, fields string, wire []byte) {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "# %s; written by go test -run TestHeaderRoundTrip -update\n# ext: %s\n", comment, fields)
	for i := 0; i < len(wire); i += 32 {
		line := wire[i:min(i+32, len(wire))]
		for j, c := range line {
			if j > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "%02x", c)
		}
		b.WriteByte('\n')
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestHeaderMissingRequiredField removes each required field in turn: the error names it as
// Java does.
func TestHeaderMissingRequiredField(t *testing.T) {
	for _, hc := range headerCases {
		required := encodeExt(hc.sample(false))
		for key := range required.All() {
			ext := encodeExt(hc.sample(true))
			ext.Delete(key)
			err := hc.newHeader().Decode(ext)
			var fe *FieldError
			if want := "the custom field <" + key + "> is null"; !errors.As(err, &fe) || !fe.Missing || err.Error() != want {
				t.Errorf("%s without %s: %v, want %q", hc.name(), key, err, want)
			}
		}
	}
}

// TestHeaderMalformedNumber puts text that is no number in each integer field in turn (the
// sample's integer fields are the ones whose value is a number).
func TestHeaderMalformedNumber(t *testing.T) {
	for _, hc := range headerCases {
		ext := encodeExt(hc.sample(true))
		for key, v := range ext.All() {
			if _, err := strconv.ParseInt(v, 10, 64); err != nil {
				continue
			}
			bad := ext.Clone()
			bad.Set(key, "12x")
			err := hc.newHeader().Decode(bad)
			if want := `the custom field <` + key + `> is not a number: "12x"`; err == nil || err.Error() != want {
				t.Errorf("%s with %s=12x: %v, want %q", hc.name(), key, err, want)
			}
		}
	}
}

func TestHeaderOutOfRange(t *testing.T) {
	var h PullMessageRequestHeader
	ext := encodeExt(headerCase{h: &h}.sample(true))
	ext.Set("queueId", "2147483648")
	if err := h.Decode(ext); err == nil || err.Error() != `the custom field <queueId> is out of range: "2147483648"` {
		t.Fatal(err)
	}
	ext.Set("queueId", "-2147483648")
	ext.Set("queueOffset", "+9223372036854775807")
	if err := h.Decode(ext); err != nil || h.QueueID != -1<<31 || h.QueueOffset != 1<<63-1 {
		t.Fatalf("%v %+v", err, h)
	}
}

// TestHeaderFirstProblemInDeclarationOrder: with several problems, the first declared field
// is named, and the rest of the header is still filled.
func TestHeaderFirstProblemInDeclarationOrder(t *testing.T) {
	var h PullMessageRequestHeader
	ext := NewExt(map[string]string{"queueId": "x", "subVersion": "y", "topic": "T", "maxMsgNums": "32"})
	err := h.Decode(ext)
	if err == nil || err.Error() != "the custom field <consumerGroup> is null" {
		t.Fatal(err)
	}
	if h.Topic != "T" || h.MaxMsgNums != 32 {
		t.Fatalf("rest not filled: %+v", h)
	}
}

// TestHeaderDecodeResets decodes into a header that holds an earlier request.
func TestHeaderDecodeResets(t *testing.T) {
	h := SendMessageRequestHeader{Properties: Some("old"), Batch: Some(true)}
	if err := h.Decode(encodeExt(headerCase{h: &h}.sample(false))); err != nil {
		t.Fatal(err)
	}
	if h.Properties.Valid || h.Batch.Valid {
		t.Fatalf("optional fields of the earlier request survived: %+v", h)
	}
}

// TestHeaderJavaParsing: booleans are Java's parseBoolean, numbers its parseInt.
func TestHeaderJavaParsing(t *testing.T) {
	var h CreateTopicRequestHeader
	ext := NewExt(map[string]string{"topic": "T", "defaultTopic": "TBW102", "readQueueNums": "+8",
		"writeQueueNums": "008", "perm": "6", "order": "TRUE", "force": "yes"})
	if err := h.Decode(ext); err != nil {
		t.Fatal(err)
	}
	if h.ReadQueueNums != 8 || h.WriteQueueNums != 8 || !h.Order.V || !h.Force.Valid || h.Force.V || h.TopicFilterType.Valid {
		t.Fatalf("%+v", h)
	}
	for _, bad := range []string{"", " 1", "1.0", "0x10"} {
		ext.Set("perm", bad)
		if err := h.Decode(ext); err == nil {
			t.Errorf("perm=%q accepted", bad)
		}
	}
}

// TestSendHeaderForms checks that V1 and V2 carry the same values and that DecodeSend picks the
// form by code.
func TestSendHeaderForms(t *testing.T) {
	h := headerCase{h: &SendMessageRequestHeader{}}.sample(true).(*SendMessageRequestHeader)
	long := encodeExt(h)
	short := encodeExt((*SendMessageRequestHeaderV2)(h))
	if got := slices.Collect(keys(short)); !slices.Equal(got, strings.Split("abcdefghijklmn", "")) {
		t.Fatalf("V2 keys %v", got)
	}
	for _, tt := range []struct {
		code RequestCode
		ext  Ext
	}{{SendMessage, long}, {SendMessageV2, short}, {SendBatchMessage, short}} {
		var got SendMessageRequestHeader
		if err := got.DecodeSend(tt.code, tt.ext); err != nil || got != *h {
			t.Errorf("%s: %v %+v", tt.code, err, got)
		}
	}
	var got SendMessageRequestHeader
	if err := got.DecodeSend(SendMessageV2, long); err == nil || err.Error() != "the custom field <a> is null" {
		t.Errorf("V2 with long names: %v", err)
	}
}

func keys(e Ext) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range e.All() {
			if !yield(k) {
				return
			}
		}
	}
}

// TestFieldTable checks the name table: every name once, each found by lookup, and every
// header declares at most maxHeaderFields fields, each at most once.
func TestFieldTable(t *testing.T) {
	seen := map[string]fieldID{}
	for id := fA; id < numFieldIDs; id++ {
		name := fieldNames[id]
		if name == "" {
			t.Fatalf("field %d has no name", id)
		}
		if other, dup := seen[name]; dup {
			t.Fatalf("%q is fields %d and %d", name, other, id)
		}
		seen[name] = id
		if lookupField(name) != id || lookupField([]byte(name)) != id {
			t.Fatalf("lookup of %q", name)
		}
	}
	for _, miss := range []string{"", "Topic", "topic ", "zz", "o", "queueid"} {
		if lookupField(miss) != fUnknown {
			t.Errorf("%q found", miss)
		}
	}
	for _, hc := range headerCases {
		c := &fieldCodec{}
		hc.h.(interface{ fields(*fieldCodec) }).fields(c)
		if c.n > maxHeaderFields {
			t.Errorf("%s declares %d fields", hc.name(), c.n)
		}
		ids := map[fieldID]bool{}
		for id, s := range c.slot {
			if s != 0 {
				ids[fieldID(id)] = true
			}
		}
		if len(ids) != c.n {
			t.Errorf("%s declares a field twice", hc.name())
		}
	}
}

// TestHeaderCasesAreComplete finds every type with a fields method in header_*.go and requires
// it in headerCases.
func TestHeaderCasesAreComplete(t *testing.T) {
	files, err := filepath.Glob("header_*.go")
	if err != nil {
		t.Fatal(err)
	}
	var declared []string
	fset := token.NewFileSet()
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == "fields" && fn.Recv != nil {
				declared = append(declared, fn.Recv.List[0].Type.(*ast.StarExpr).X.(*ast.Ident).Name)
			}
		}
	}
	var listed []string
	for _, hc := range headerCases {
		listed = append(listed, hc.name())
	}
	slices.Sort(declared)
	slices.Sort(listed)
	if !slices.Equal(declared, listed) {
		t.Fatalf("header types\n%v\nheaderCases\n%v", declared, listed)
	}
}

// TestHeadersOfClientFrames decodes the typed headers of frames real clients sent.
func TestHeadersOfClientFrames(t *testing.T) {
	ext := func(file string) Ext { return decodeWire(t, readGolden(t, file)).ExtFields }

	var send SendMessageRequestHeader
	if err := send.DecodeSend(SendMessage, ext("go_send_message_json.hex")); err != nil {
		t.Fatal(err)
	}
	if send.ProducerGroup != "pg" || send.Topic != "TopicTest" || send.QueueID != 1 || send.BornTimestamp != 1700000000000 ||
		send.DefaultTopicQueueNums != 4 || send.Batch != Some(false) || send.BrokerName != Some("broker-a") ||
		send.MaxReconsumeTimes != Some[int32](0) || !strings.HasPrefix(send.Properties.V, "KEYS\x01order-1\x02") {
		t.Errorf("go client send: %+v", send)
	}

	var v2 SendMessageRequestHeader
	if err := v2.DecodeSend(SendMessageV2, ext("alions_send_message_v2_json.hex")); err != nil {
		t.Fatal(err)
	}
	if v2.ProducerGroup != "GID_test" || v2.Topic != "TopicTest" || v2.BornTimestamp != 1700000000123 ||
		v2.UnitMode != Some(false) || v2.MaxReconsumeTimes != Some[int32](16) || v2.Batch.Valid || v2.BrokerName.Valid {
		t.Errorf("ali-ons send: %+v", v2)
	}

	var pull PullMessageRequestHeader
	if err := pull.Decode(ext("go_pull_message_rocketmq.hex")); err != nil {
		t.Fatal(err)
	}
	if pull != (PullMessageRequestHeader{ConsumerGroup: "cg", Topic: "TopicTest", QueueID: 2, QueueOffset: 100,
		MaxMsgNums: 32, SysFlag: 2, SuspendTimeoutMillis: 20000, Subscription: Some("*"), ExpressionType: Some("TAG")}) {
		t.Errorf("go client pull: %+v", pull)
	}

	var resp SendMessageResponseHeader
	if err := resp.Decode(ext("java_send_response_json.hex")); err != nil {
		t.Fatal(err)
	}
	if resp != (SendMessageResponseHeader{MsgID: "C0A8000100002A9F0000000000001234", QueueID: 1, QueueOffset: 42,
		MsgRegion: Some("DefaultRegion"), TraceOn: Some(true)}) {
		t.Errorf("java send response: %+v", resp)
	}
}
