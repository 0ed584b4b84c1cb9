package main

import (
	"os"
	"strings"
	"testing"
	"time"
)

func TestParseStatCPU(t *testing.T) {
	// A command name with spaces and a ')' of its own; utime 250 and stime 50 ticks.
	line := "4242 (my (odd) broker) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 12 0 100 1000 10 18446744073709551615\n"
	got, err := parseStatCPU([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	if want := 3 * time.Second; got != want {
		t.Errorf("got %v, want %v", got, want)
	}
	for _, bad := range []string{"", "4242 no parens S 1", "4242 (x) S 1 2 3", "4242 (x) S 1 4242 4242 0 -1 4194560 100 0 0 0 ten 50 0"} {
		if _, err := parseStatCPU([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestParseStatCPUOfThisProcess(t *testing.T) {
	if _, err := procCPU(os.Getpid()); err != nil {
		t.Fatal(err)
	}
}

func TestParseStatus(t *testing.T) {
	status := "Name:\tmqbroker\nVmRSS:\t  300 kB\nRssAnon:\t  200 kB\nRssFile:\t   90 kB\nRssShmem:\t   10 kB\nThreads:\t12\n"
	m, err := parseStatus([]byte(status))
	if err != nil {
		t.Fatal(err)
	}
	if m != (memory{RssAnon: 200 << 10, RssFile: 90 << 10, RssShmem: 10 << 10}) {
		t.Errorf("got %+v", m)
	}
	if _, err := parseStatus([]byte("RssAnon:\t200 kB\n")); err == nil {
		t.Error("missing RssFile and RssShmem: no error")
	}
	if _, err := parseStatus([]byte("RssAnon:\t200 MB\nRssFile:\t1 kB\nRssShmem:\t0 kB\n")); err == nil {
		t.Error("a unit other than kB: no error")
	}
	if _, err := procMemory(os.Getpid()); err != nil {
		t.Fatal(err)
	}
}

func TestParseDiskFlushes(t *testing.T) {
	stats := strings.Join([]string{
		"   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0",
		" 254       0 vda 823297 116734 22697594 706136 8486248 2749299 530315472 7385024 0 2096896 10041486 3183850 870 2112838728 855174 2453796 1095150",
		" 254       1 vda1 10 0 0 0 0 0 0 0",
	}, "\n")
	n, err := parseDiskFlushes([]byte(stats), 254, 0)
	if err != nil {
		t.Fatal(err)
	}
	if n != 2453796 {
		t.Errorf("flushes %d, want 2453796", n)
	}
	if _, err := parseDiskFlushes([]byte(stats), 254, 1); err == nil {
		t.Error("a line without flush counters: no error")
	}
	if _, err := parseDiskFlushes([]byte(stats), 8, 0); err == nil {
		t.Error("a device not listed: no error")
	}
}

func TestParsePromValue(t *testing.T) {
	text := `# HELP rocketgo_store_commitlog_flush_seconds Duration of CommitLog syncs (msync).
# TYPE rocketgo_store_commitlog_flush_seconds histogram
rocketgo_store_commitlog_flush_seconds_bucket{le="0.0001"} 3
rocketgo_store_commitlog_flush_seconds_sum 0.5
rocketgo_store_commitlog_flush_seconds_count 42
rocketgo_store_commitlog_flush_seconds_count_other 7
rocketmq_messages_in_total{topic="a",message_type="normal"} 10
rocketmq_messages_in_total{topic="b",message_type="normal"} 5.5
`
	for name, want := range map[string]float64{
		"rocketgo_store_commitlog_flush_seconds_count": 42,
		"rocketmq_messages_in_total":                   15.5,
	} {
		if got, ok := parsePromValue([]byte(text), name); !ok || got != want {
			t.Errorf("%s: got %v, %v; want %v", name, got, ok, want)
		}
	}
	if _, ok := parsePromValue([]byte(text), "absent_metric"); ok {
		t.Error("an absent metric was found")
	}
}
