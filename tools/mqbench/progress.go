package mqbench

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/rocketgo/rocketgo/internal/lifecycle"
)

// DefaultProgressEvery is how often a run with a progress writer reports.
const DefaultProgressEvery = time.Second

// progress writes a line every interval while a run lasts: what each running phase has done so
// far and its rate over the last interval, so that a long run shows it is alive and how it goes.
// The final report does not depend on it. A nil *progress does nothing.
type progress struct {
	w     io.Writer
	every time.Duration
	start time.Time
	g     lifecycle.Group

	mu   sync.Mutex
	prod phaseWatch[*producer] // REQUIRES mu
	cons phaseWatch[*consumer] // REQUIRES mu
}

// phaseWatch is the running phase of one kind, and its count at the last line.
type phaseWatch[T any] struct {
	phase T
	on    bool
	last  int64
	at    time.Time
}

func (w *phaseWatch[T]) set(phase T, on bool, now time.Time) {
	*w = phaseWatch[T]{phase: phase, on: on, at: now}
}

// rate is the messages per second since the last line, for a phase at count n now.
func (w *phaseWatch[T]) rate(n int64, now time.Time) float64 {
	d := now.Sub(w.at).Seconds()
	r := 0.0
	if d > 0 {
		r = float64(n-w.last) / d
	}
	w.last, w.at = n, now
	return r
}

// startProgress starts reporting to w every interval; nil w reports nothing.
func startProgress(w io.Writer, every time.Duration) *progress {
	if w == nil {
		return nil
	}
	if every <= 0 {
		every = DefaultProgressEvery
	}
	pr := &progress{w: w, every: every, start: time.Now()}
	pr.g.Go(pr.loop)
	return pr
}

func (pr *progress) loop(stop <-chan struct{}) {
	t := time.NewTicker(pr.every)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case now := <-t.C:
			if line := pr.line(now); line != "" {
				_, _ = io.WriteString(pr.w, line)
			}
		}
	}
}

// stop ends the reports; it returns once the last line is written.
func (pr *progress) stop() {
	if pr != nil {
		pr.g.Stop()
	}
}

// watchProducer reports p from now on; nil stops reporting the producing phase.
func (pr *progress) watchProducer(p *producer) {
	if pr != nil {
		pr.mu.Lock()
		pr.prod.set(p, p != nil, time.Now())
		pr.mu.Unlock()
	}
}

// watchConsumer reports c from now on; nil stops reporting the consuming phase.
func (pr *progress) watchConsumer(c *consumer) {
	if pr != nil {
		pr.mu.Lock()
		pr.cons.set(c, c != nil, time.Now())
		pr.mu.Unlock()
	}
}

// line is the report at now of the phases running, or "" when none is.
func (pr *progress) line(now time.Time) string {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	var parts []string
	if pr.prod.on {
		parts = append(parts, pr.produceLine(now))
	}
	if pr.cons.on {
		parts = append(parts, pr.consumeLine(now))
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("mqbench %5.0fs: %s\n", now.Sub(pr.start).Seconds(), strings.Join(parts, "; "))
}

// produceLine reports the producing phase; pr.mu is held.
func (pr *progress) produceLine(now time.Time) string {
	p := pr.prod.phase
	acked := p.acked.Load()
	return fmt.Sprintf("produce sent %d, acked %d, failed %d, %.0f msgs/s",
		p.sent.Load(), acked, p.failed.Load(), pr.prod.rate(acked, now))
}

// consumeLine reports the consuming phase; pr.mu is held.
func (pr *progress) consumeLine(now time.Time) string {
	c := pr.cons.phase
	got := c.msgs.Load()
	return fmt.Sprintf("consume pulls %d, received %d, failed pulls %d, %.0f msgs/s",
		c.pulls.Load(), got, c.failedPulls.Load(), pr.cons.rate(got, now))
}
