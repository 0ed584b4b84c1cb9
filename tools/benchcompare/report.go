package main

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// results are the run's figures.
type results struct {
	Config             config
	Started            time.Time
	Elapsed            time.Duration
	LoadStart, LoadEnd string
	Fsync              syncFigures

	OursAsync256, OursSync256, OursAsync16, OursSync16, OursSingle, OursConsume, OursGo figures
	StubAsync256, StubGo                                                                figures
	NatsAsync256, NatsDefault16, NatsAlways16, NatsAlways256, NatsConsume               figures

	OursMem, NatsMem   memory
	OursDisk, NatsDisk int64
}

// syncFigures is the device's write+fdatasync latency, in µs.
type syncFigures struct{ P50Us, P99Us float64 }

// parseSyncReport reads mqbench fdatasync --json.
func parseSyncReport(b []byte) (syncFigures, error) {
	var r struct {
		Latency struct {
			P50Us float64 `json:"p50_us"`
			P99Us float64 `json:"p99_us"`
		} `json:"latency"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return syncFigures{}, fmt.Errorf("mqbench fdatasync: %w", err)
	}
	if r.Latency.P99Us <= 0 {
		return syncFigures{}, fmt.Errorf("mqbench fdatasync reported no latency")
	}
	return syncFigures{r.Latency.P50Us, r.Latency.P99Us}, nil
}

func allocated(info os.FileInfo) int64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return st.Blocks * 512
	}
	return info.Size()
}

// Markers of the section make bench-compare rewrites.
const (
	beginMarker = "<!-- bench-compare:begin (written by make bench-compare; edits inside are lost) -->"
	endMarker   = "<!-- bench-compare:end -->"
)

// writeSection replaces what is between the markers in the file at path with text, or appends
// the markers and text when the file has none.
func writeSection(path, text string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return os.WriteFile(path, []byte(replaceSection(string(b), text)), 0o644)
}

func replaceSection(doc, text string) string {
	block := beginMarker + "\n" + text + endMarker + "\n"
	i := strings.Index(doc, beginMarker)
	j := strings.Index(doc, endMarker)
	if i < 0 || j < i {
		if !strings.HasSuffix(doc, "\n") {
			doc += "\n"
		}
		return doc + "\n" + block
	}
	rest := strings.TrimPrefix(doc[j+len(endMarker):], "\n")
	return doc[:i] + block + rest
}

// rate is messages per second, in thousands.
func rate(f figures) string { return fmt.Sprintf("%.1fk/s", f.Rate/1000) }

func rateCPU(f figures) string {
	return fmt.Sprintf("%s at **%.1f µs** CPU/msg", rate(f), f.CPUUsPerMsg)
}

func ratio(a, b float64) string {
	if b == 0 {
		return "—"
	}
	return fmt.Sprintf("%.2f", a/b)
}

// syncs is the syncs per acknowledgement: the device's flushes and, for ours, the CommitLog's.
func syncs(f figures) string {
	s := fmt.Sprintf("%.3f device flushes/ack", f.DevFlushes)
	if f.LogSyncs >= 0 {
		s += fmt.Sprintf(", %.3f CommitLog syncs/ack", f.LogSyncs)
	}
	return s
}

func mib(v int64) string { return fmt.Sprintf("%.0f MiB", float64(v)/(1<<20)) }

func mem(m memory, disk int64) string {
	return fmt.Sprintf("RssAnon **%s**; RssFile %s (mapped page cache); %s on disk", mib(m.RssAnon), mib(m.RssFile), mib(disk))
}

// markdown renders the table and how it was made.
func (r *results) markdown() string {
	var b strings.Builder
	c := r.Config
	fmt.Fprintf(&b, "Run of %s (%s, %d CPUs, Linux, 1 KiB bodies), %.0f s; load average %s at the start, %s at the end.\n\n",
		r.Started.UTC().Format("2006-01-02 15:04 MST"), runtime.GOARCH, runtime.NumCPU(), r.Elapsed.Seconds(), r.LoadStart, r.LoadEnd)
	b.WriteString("| workload | ours | stub broker | NATS JetStream 2.15.2 | ratio (target) |\n|---|---|---|---|---|\n")
	row := func(cells ...string) { b.WriteString("| " + strings.Join(cells, " | ") + " |\n") }
	row(fmt.Sprintf("async produce, 1 connection × 256 in flight, %d msgs: ASYNC_FLUSH vs default", c.messages),
		rateCPU(r.OursAsync256), rateCPU(r.StubAsync256), rateCPU(r.NatsAsync256),
		ratio(r.OursAsync256.CPUUsPerMsg, r.NatsAsync256.CPUUsPerMsg)+"× NATS's CPU/msg (≤ 0.5)")
	row(fmt.Sprintf("16 synchronous senders, %d msgs: SYNC_FLUSH vs `sync_interval: always`", c.sync16),
		rateCPU(r.OursSync16)+"; "+syncs(r.OursSync16), "—", rateCPU(r.NatsAlways16)+"; "+syncs(r.NatsAlways16),
		ratio(r.OursSync16.Rate, r.NatsAlways16.Rate)+"× NATS's rate (≥ 5)")
	row(fmt.Sprintf("the same 16 senders, %d msgs: ASYNC_FLUSH vs default", c.senders16),
		rateCPU(r.OursAsync16), "—", rateCPU(r.NatsDefault16),
		"ours SYNC ÷ ASYNC at 16 senders: "+ratio(r.OursSync16.Rate, r.OursAsync16.Rate)+" (≥ 0.7)")
	row("async produce, 256 in flight: SYNC_FLUSH vs `sync_interval: always`",
		rateCPU(r.OursSync256)+"; "+syncs(r.OursSync256), "—", rateCPU(r.NatsAlways256)+"; "+syncs(r.NatsAlways256),
		"ours SYNC ÷ ASYNC at 256: "+ratio(r.OursSync256.Rate, r.OursAsync256.Rate)+" (≥ 0.9)")
	row(fmt.Sprintf("one synchronous sender, SYNC_FLUSH, %d msgs: p99 vs the device's write+fdatasync p99", c.single),
		fmt.Sprintf("p99 %.2f ms (%s)", r.OursSingle.P99Us/1000, rate(r.OursSingle)), "—",
		fmt.Sprintf("device: fdatasync p50 %.2f ms, p99 %.2f ms", r.Fsync.P50Us/1000, r.Fsync.P99Us/1000),
		ratio(r.OursSingle.P99Us, r.Fsync.P99Us)+"× the device's p99 (≤ 3)")
	row(fmt.Sprintf("consume (pull) of the %d msgs", c.messages), rateCPU(r.OursConsume), "—", rateCPU(r.NatsConsume),
		ratio(r.OursConsume.CPUUsPerMsg, r.NatsConsume.CPUUsPerMsg)+"× NATS's CPU/msg (≤ 0.5)")
	row(fmt.Sprintf("official Go client, async send, 256 outstanding, %d msgs", c.goClient),
		rateCPU(r.OursGo), rateCPU(r.StubGo), "—", "ours ÷ stub: "+ratio(r.OursGo.Rate, r.StubGo.Rate)+" (≥ 0.9)")
	row(fmt.Sprintf("memory after the async produce (%d × 1 KiB stored)", c.messages), mem(r.OursMem, r.OursDisk), "—",
		mem(r.NatsMem, r.NatsDisk), ratio(float64(r.OursMem.RssAnon), float64(r.NatsMem.RssAnon))+"× NATS's RssAnon (≤ 1)")
	b.WriteString("\n" + r.failures())
	return b.String()
}

// failures lists loads whose client counted failed messages.
func (r *results) failures() string {
	var out []string
	for name, f := range map[string]figures{"ours async 256": r.OursAsync256, "ours SYNC 256": r.OursSync256,
		"ours 16 ASYNC": r.OursAsync16, "ours 16 SYNC": r.OursSync16, "ours 1 SYNC": r.OursSingle,
		"ours consume": r.OursConsume, "ours Go client": r.OursGo, "stub 256": r.StubAsync256, "stub Go client": r.StubGo,
		"NATS 256": r.NatsAsync256, "NATS 16": r.NatsDefault16, "NATS 16 always": r.NatsAlways16,
		"NATS 256 always": r.NatsAlways256, "NATS consume": r.NatsConsume} {
		if f.Failed > 0 {
			out = append(out, fmt.Sprintf("%s: %d failed", name, f.Failed))
		}
	}
	if len(out) == 0 {
		return "Every load completed without a failed message.\n"
	}
	return "Failures: " + strings.Join(out, "; ") + ".\n"
}
