package main

import (
	"strings"
	"testing"
)

func TestReplaceSection(t *testing.T) {
	doc := "# Benchmarks\n\nintro\n" + beginMarker + "\nold table\n" + endMarker + "\n\n## Next\n"
	got := replaceSection(doc, "new table\n")
	want := "# Benchmarks\n\nintro\n" + beginMarker + "\nnew table\n" + endMarker + "\n\n## Next\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if again := replaceSection(got, "new table\n"); again != got {
		t.Errorf("not idempotent:\n%s", again)
	}
	appended := replaceSection("# Benchmarks", "t\n")
	if !strings.HasSuffix(appended, beginMarker+"\nt\n"+endMarker+"\n") || !strings.HasPrefix(appended, "# Benchmarks\n\n") {
		t.Errorf("appended: %q", appended)
	}
}

func TestParseReports(t *testing.T) {
	mq := `{"mode":"produce","produce":{"messages":1000,"attempted":1000,"msgs_per_s":5000.5,"errors":2,"latency":{"p99_us":800}}}`
	r, err := parseMqbench([]byte(mq))
	if err != nil || r != (clientResult{Messages: 1000, Rate: 5000.5, P99Us: 800, Failed: 2}) {
		t.Errorf("mqbench produce: %+v, %v", r, err)
	}
	r, err = parseMqbench([]byte(`{"mode":"consume","consume":{"messages":7,"msgs_per_s":1}}`))
	if err != nil || r.Messages != 7 {
		t.Errorf("mqbench consume: %+v, %v", r, err)
	}
	if _, err := parseMqbench([]byte(`{"mode":"both"}`)); err == nil {
		t.Error("a report without phases: no error")
	}
	r, err = parseFlat([]byte(`{"messages":9,"failed":1,"seconds":1,"msgs_per_s":9,"p99_us":3}`))
	if err != nil || r != (clientResult{Messages: 9, Rate: 9, P99Us: 3, Failed: 1}) {
		t.Errorf("flat: %+v, %v", r, err)
	}
	s, err := parseSyncReport([]byte(`{"latency":{"p50_us":100,"p99_us":900}}`))
	if err != nil || s != (syncFigures{100, 900}) {
		t.Errorf("sync report: %+v, %v", s, err)
	}
	if _, err := parseSyncReport([]byte(`{"latency":{}}`)); err == nil {
		t.Error("a sync report without latency: no error")
	}
}

func TestMarkdownHasEveryRow(t *testing.T) {
	r := &results{Config: config{messages: 10}}
	md := r.markdown()
	for _, want := range []string{"async produce", "16 synchronous senders", "SYNC ÷ ASYNC", "fdatasync", "consume",
		"official Go client", "RssAnon", "without a failed message"} {
		if !strings.Contains(md, want) {
			t.Errorf("table lacks %q:\n%s", want, md)
		}
	}
}
