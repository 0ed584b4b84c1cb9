package mqbench

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// Report is what a run measured.
type Report struct {
	Mode        Mode          `json:"mode"`
	Topic       string        `json:"topic"`
	Namesrv     []string      `json:"namesrv"`
	Size        int           `json:"size"`
	Batch       int           `json:"batch"`
	Concurrency int           `json:"concurrency"`
	Window      int           `json:"window"`
	PullWindow  int           `json:"pull_window"`
	PullBatch   int           `json:"pull_batch"`
	Produce     *PhaseReport  `json:"produce,omitempty"`
	Consume     *PhaseReport  `json:"consume,omitempty"`
	Verify      *VerifyReport `json:"verify,omitempty"`
	Notes       []string      `json:"notes,omitempty"`
}

// PhaseReport is one phase: producing or consuming.
type PhaseReport struct {
	// Messages the broker acknowledged as stored (produce) or that were read (consume).
	Messages  int64 `json:"messages"`
	Attempted int64 `json:"attempted,omitempty"` // produce: messages sent
	Requests  int64 `json:"requests"`
	Bytes     int64 `json:"bytes"` // body bytes
	Queues    int   `json:"queues"`

	Seconds    float64 `json:"seconds"`
	MsgsPerSec float64 `json:"msgs_per_s"`
	MBPerSec   float64 `json:"mb_per_s"` // body bytes, 10^6 per MB

	// Latency per request, from handing it to the connection to its
	// response's callback: every answered send; pulls that found messages.
	Latency LatencySummary `json:"latency"`
	// Responses by code name; calls that got no response as "error: ...".
	Responses map[string]int64  `json:"responses"`
	Errors    int64             `json:"errors"`            // responses and calls that are failures
	Remarks   map[string]string `json:"remarks,omitempty"` // first remark per failing code
	Complete  bool              `json:"complete"`          // reached its message count

	BadAnswers     int64 `json:"bad_answers,omitempty"`     // produce: stored, but no readable queueId/queueOffset/msgId
	ForeignRecords int64 `json:"foreign_records,omitempty"` // consume: records without this run's keys
	BadCRC         int64 `json:"bad_crc,omitempty"`
	Misplaced      int64 `json:"misplaced,omitempty"` // consume: wrong topic, queue or offset

	// pop: messages acknowledged (ACK_MESSAGE or BATCH_ACK_MESSAGE answered SUCCESS), and the acks'
	// latency and answers.
	Acks         int64            `json:"acks,omitempty"`
	AckFailures  int64            `json:"ack_failures,omitempty"`
	AckLatency   LatencySummary   `json:"ack_latency,omitempty"`
	AckResponses map[string]int64 `json:"ack_responses,omitempty"`

	CPU CPUReport `json:"cpu"`
}

func (p *PhaseReport) setRate(d time.Duration) {
	p.Seconds = d.Seconds()
	if p.Seconds > 0 {
		p.MsgsPerSec = float64(p.Messages) / p.Seconds
		p.MBPerSec = float64(p.Bytes) / p.Seconds / 1e6
	}
}

var (
	storedName = map[string]bool{
		protocol.Success.String(): true, protocol.FlushDiskTimeout.String(): true,
		protocol.FlushSlaveTimeout.String(): true, protocol.SlaveNotAvailable.String(): true,
	}
	// A PULL_NOT_FOUND answers a long poll past the end: no failure.
	pullOKName = map[string]bool{protocol.Success.String(): true, protocol.PullNotFound.String(): true}
)

// countErrors sums the counts whose names ok does not accept. Cancelled
// calls at the end of a phase are not failures.
func countErrors(resp map[string]int64, ok map[string]bool) int64 {
	var n int64
	for name, c := range resp {
		if !ok[name] && name != "error: cancelled" {
			n += c
		}
	}
	return n
}

// WriteJSON writes r as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes r for people.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "mqbench %s: topic %s", r.Mode, r.Topic)
	if r.Mode != ModeConsume && r.Mode != ModePop {
		fmt.Fprintf(&b, ", %d-byte bodies, batch %d, %d senders x window %d", r.Size, r.Batch, r.Concurrency, r.Window)
	}
	switch r.Mode {
	case ModeProduce:
	case ModePop:
		fmt.Fprintf(&b, ", POPs of %d x window %d per broker", r.PullBatch, r.PullWindow)
	default:
		fmt.Fprintf(&b, ", pulls of %d x window %d per queue", r.PullBatch, r.PullWindow)
	}
	b.WriteByte('\n')
	if r.Produce != nil {
		writePhase(&b, "produce", r.Produce)
	}
	if r.Consume != nil {
		name := "consume"
		if r.Mode == ModePop {
			name = "pop"
		}
		writePhase(&b, name, r.Consume)
	}
	if v := r.Verify; v != nil {
		verdict := "OK"
		if !v.OK() {
			verdict = "FAILED"
		}
		fmt.Fprintf(&b, "verify   %s: acked %d, received %d distinct, missing %d, duplicates %d, received-but-unacked %d, misplaced %d\n",
			verdict, v.Acked, v.Received, v.Missing, v.Duplicates, v.Unacked, v.Misplaced)
		if v.FirstMisplaced != "" {
			fmt.Fprintf(&b, "         first misplaced: %s\n", v.FirstMisplaced)
		}
		if len(v.FirstGaps) > 0 {
			fmt.Fprintf(&b, "         first missing sequence numbers: %v\n", v.FirstGaps)
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writePhase(b *strings.Builder, name string, p *PhaseReport) {
	fmt.Fprintf(b, "%-8s %d msgs in %.3f s = %.0f msgs/s, %.2f MB/s (%d requests, %d queues)",
		name, p.Messages, p.Seconds, p.MsgsPerSec, p.MBPerSec, p.Requests, p.Queues)
	if !p.Complete {
		b.WriteString(" INCOMPLETE")
	}
	b.WriteByte('\n')
	l := p.Latency
	fmt.Fprintf(b, "         latency p50 %s  p90 %s  p99 %s  p99.9 %s  max %s  mean %s\n",
		us(l.P50Us), us(l.P90Us), us(l.P99Us), us(l.P999Us), us(l.MaxUs), us(l.MeanUs))
	fmt.Fprintf(b, "         responses %s; errors %d\n", formatCounts(p.Responses), p.Errors)
	for _, k := range sortedKeys(p.Remarks) {
		fmt.Fprintf(b, "         first %s remark: %q\n", k, p.Remarks[k])
	}
	if p.Acks+p.AckFailures > 0 {
		a := p.AckLatency
		fmt.Fprintf(b, "         acks %d (failed %d), ack latency p50 %s  p99 %s  max %s; ack responses %s\n",
			p.Acks, p.AckFailures, us(a.P50Us), us(a.P99Us), us(a.MaxUs), formatCounts(p.AckResponses))
	}
	if p.BadAnswers > 0 {
		fmt.Fprintf(b, "         %d stored-status answers without a readable queueId, queueOffset or msgId\n", p.BadAnswers)
	}
	if p.ForeignRecords+p.BadCRC+p.Misplaced > 0 {
		fmt.Fprintf(b, "         records: %d not from this run, %d bad CRC, %d misplaced\n",
			p.ForeignRecords, p.BadCRC, p.Misplaced)
	}
	c := p.CPU
	b.WriteString("         cpu:")
	switch {
	case c.BrokerError != "":
		fmt.Fprintf(b, " broker unknown (%s);", c.BrokerError)
	case c.brokerWasMeasured:
		fmt.Fprintf(b, " broker %.2f s = %.1f µs/msg;", c.BrokerSeconds, c.BrokerUsPerMsg)
	}
	fmt.Fprintf(b, " mqbench %.2f s = %.1f µs/msg\n", c.MqbenchSeconds, c.MqbenchUsPerMsg)
}

func us(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.2fs", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.2fms", v/1e3)
	}
	return fmt.Sprintf("%.0fµs", v)
}

func formatCounts(m map[string]int64) string {
	if len(m) == 0 {
		return "none"
	}
	parts := make([]string, 0, len(m))
	for _, k := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
