package protocol

import (
	"testing"
)

// TestExtraInfoJavaForms checks both forms Java's ExtraInfoUtil.buildExtraInfo writes and what
// ParseExtraInfo refuses.
func TestExtraInfoJavaForms(t *testing.T) {
	full := "12 1700000000000 60000 3 1 broker-a 2 14"
	e, err := ParseExtraInfo(full)
	if err != nil {
		t.Fatal(err)
	}
	want := ExtraInfo{CkQueueOffset: 12, PopTime: 1700000000000, InvisibleTime: 60000, ReviveQid: 3,
		Retry: RetryMarkRetry, BrokerName: "broker-a", QueueID: 2, QueueOffset: 14, HasQueueOffset: true}
	if e != want || e.String() != full {
		t.Fatalf("parsed %+v (%q)", e, e.String())
	}
	short, err := ParseExtraInfo("12 1700000000000 60000 999 0 broker-a 2")
	if err != nil || short.HasQueueOffset || short.ReviveQid != 999 || short.String() != "12 1700000000000 60000 999 0 broker-a 2" {
		t.Fatalf("seven fields: %+v %v", short, err)
	}
	for _, bad := range []string{"", "1 2 3 4 0 b", "x 2 3 4 0 b 1", "1 2 3 4 9 b 1", "1 2 3 4 00 b 1", "1 2 3 4 0  1",
		"1 2 3 99999999999 0 b 1", "1 2 3 4 0 b 1 2 3", "1 2 3 4 0 b 1 x"} {
		if _, err := ParseExtraInfo(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestParseExtraInfoAllocatesNothing(t *testing.T) {
	s := "12 1700000000000 60000 3 1 broker-a 2 14"
	if n := testing.AllocsPerRun(100, func() { _, _ = ParseExtraInfo(s) }); n != 0 {
		t.Fatalf("%v allocations", n)
	}
}

func TestRetryMarks(t *testing.T) {
	for topic, want := range map[string]byte{"T": '0', "%RETRY%G_T": '1', "%RETRY%G": '1', "%RETRY%G+T": '2'} {
		if got := RetryMark(topic); got != want {
			t.Errorf("%s: %c", topic, got)
		}
	}
	if RealTopic("T", "G", '0') != "T" || RealTopic("T", "G", '1') != "%RETRY%G_T" || RealTopic("T", "G", '2') != "%RETRY%G+T" {
		t.Fatal("RealTopic")
	}
}

// TestInfoStrings builds the three response strings as Java's ExtraInfoUtil does and parses them
// back as the Java client's parsers file them.
func TestInfoStrings(t *testing.T) {
	var start, msgs, order []byte
	start = AppendStartOffsetInfo(start, '0', 1, 10)
	start = AppendStartOffsetInfo(start, '1', 0, 3)
	msgs = AppendMsgOffsetInfo(msgs, '0', 1, []int64{10, 11, 13})
	msgs = AppendMsgOffsetInfo(msgs, '1', 0, []int64{3})
	order = AppendOffsetOrderCount(order, '0', 1, 10, 2)
	order = AppendQueueOrderCount(order, '0', 1, 0)
	if string(start) != "0 1 10;1 0 3" || string(msgs) != "0 1 10,11,13;1 0 3" || string(order) != "0 qo1%10 2;0 1 0" {
		t.Fatalf("%q %q %q", start, msgs, order)
	}
	m, err := ParseInfo(string(msgs))
	if err != nil || m["0@1"] != "10,11,13" || m["1@0"] != "3" || len(m) != 2 {
		t.Fatalf("%v %v", m, err)
	}
	o, err := ParseInfo(string(order))
	if err != nil || o["0@qo1%10"] != "2" || o["0@1"] != "0" {
		t.Fatalf("%v %v", o, err)
	}
	for _, bad := range []string{"0 1", "0 1 2;0 1 3", "00 1 2"} {
		if _, err := ParseInfo(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func FuzzParseExtraInfo(f *testing.F) {
	f.Add("12 1700000000000 60000 3 1 broker-a 2 14")
	f.Add("12 1700000000000 60000 999 0 broker-a 2")
	f.Fuzz(func(t *testing.T, s string) {
		e, err := ParseExtraInfo(s)
		if err != nil {
			return
		}
		back, err := ParseExtraInfo(e.String())
		if err != nil || back != e {
			t.Fatalf("%q → %+v → %q → %+v %v", s, e, e.String(), back, err)
		}
	})
}
