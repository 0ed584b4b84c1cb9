package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// clientResult is what a load client reported, whichever client it was.
type clientResult struct {
	Messages int64
	Rate     float64 // messages per second
	P99Us    float64 // per request; 0 when not measured
	Failed   int64
	FirstErr string // the client's first failure, if it says
}

// figures is one load on one server: the client's report and what the server spent on it.
type figures struct {
	clientResult
	CPUUsPerMsg  float64 // server CPU (utime+stime) per message
	DevFlushes   float64 // device flush requests per message
	LogSyncs     float64 // our CommitLog syncs per message (-1: not known)
	ServerCPUSec float64
}

// measure runs the client (argv) against s and reads the server's counters around it.
func measure(s *server, parse func([]byte) (clientResult, error), argv ...string) (figures, error) {
	var f figures
	cpu0, err := procCPU(s.proc.pid())
	if err != nil {
		return f, err
	}
	fl0, flErr := diskFlushes(s.dataDir)
	sy0, syOK := parsePromValue(s.scrape(), syncMetric)
	fmt.Fprintf(os.Stderr, "  %s\n", strings.Join(argv, " "))
	out, err := run(argv...)
	if err != nil {
		return f, err
	}
	cpu1, err := procCPU(s.proc.pid())
	if err != nil {
		return f, err
	}
	fl1, _ := diskFlushes(s.dataDir)
	sy1, _ := parsePromValue(s.scrape(), syncMetric)
	if f.clientResult, err = parse(out); err != nil {
		return f, fmt.Errorf("%s: %w", argv[0], err)
	}
	if f.Messages == 0 {
		return f, fmt.Errorf("%s: no message got through", argv[0])
	}
	n := float64(f.Messages)
	f.ServerCPUSec = (cpu1 - cpu0).Seconds()
	f.CPUUsPerMsg = float64((cpu1 - cpu0).Microseconds()) / n
	f.DevFlushes, f.LogSyncs = -1, -1
	if flErr == nil {
		f.DevFlushes = float64(fl1-fl0) / n
	}
	if syOK {
		f.LogSyncs = (sy1 - sy0) / n
	}
	fmt.Fprintf(os.Stderr, "    %d msgs, %.0f/s, server %.1f µs/msg, p99 %.0f µs, device flushes/msg %.3f, failed %d\n",
		f.Messages, f.Rate, f.CPUUsPerMsg, f.P99Us, f.DevFlushes, f.Failed)
	if f.FirstErr != "" {
		fmt.Fprintf(os.Stderr, "    first failure: %s\n", f.FirstErr)
	}
	return f, nil
}

// syncMetric counts our broker's CommitLog syncs.
const syncMetric = "rocketgo_store_commitlog_flush_seconds_count"

// run runs argv and returns its stdout; its stderr goes to ours only when it fails.
func run(argv ...string) ([]byte, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	begin := time.Now()
	if err := cmd.Run(); err != nil {
		os.Stderr.Write(stderr.Bytes())
		return nil, fmt.Errorf("%s failed after %v: %w", argv[0], time.Since(begin).Round(time.Millisecond), err)
	}
	return stdout.Bytes(), nil
}

// parseMqbench reads mqbench --json: the produce phase, else the consume phase.
func parseMqbench(b []byte) (clientResult, error) {
	type phase struct {
		Messages   int64   `json:"messages"`
		Attempted  int64   `json:"attempted"`
		MsgsPerSec float64 `json:"msgs_per_s"`
		Errors     int64   `json:"errors"`
		Latency    struct {
			P99Us float64 `json:"p99_us"`
		} `json:"latency"`
	}
	var rep struct {
		Produce, Consume *phase
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		return clientResult{}, err
	}
	p := rep.Produce
	if p == nil {
		p = rep.Consume
	}
	if p == nil {
		return clientResult{}, fmt.Errorf("report has neither a produce nor a consume phase")
	}
	return clientResult{Messages: p.Messages, Rate: p.MsgsPerSec, P99Us: p.Latency.P99Us, Failed: p.Errors}, nil
}

// parseFlat reads the one-object JSON of natsbench and goclientbench.
func parseFlat(b []byte) (clientResult, error) {
	var r struct {
		Messages   int64   `json:"messages"`
		Failed     int64   `json:"failed"`
		MsgsPerSec float64 `json:"msgs_per_s"`
		P99Us      float64 `json:"p99_us"`
		FirstError string  `json:"first_error"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return clientResult{}, err
	}
	return clientResult{Messages: r.Messages, Rate: r.MsgsPerSec, P99Us: r.P99Us, Failed: r.Failed, FirstErr: r.FirstError}, nil
}
