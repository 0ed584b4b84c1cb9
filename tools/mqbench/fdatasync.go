package mqbench

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"
)

// SyncReport is what the fdatasync probe measured: the latency of writing Size bytes at the end of
// a file and fdatasync-ing it, Count times, as a broker's flush of one small message does.
type SyncReport struct {
	Dir     string         `json:"dir"`
	Size    int            `json:"size"`
	Count   int            `json:"count"`
	Seconds float64        `json:"seconds"`
	Latency LatencySummary `json:"latency"`
}

// ProbeFdatasync appends size bytes to a new file in dir and fdatasyncs it, count times, and
// reports the latency of each write+fdatasync in the Histogram sends are measured with. The file
// is removed afterwards.
func ProbeFdatasync(dir string, size, count int) (*SyncReport, error) {
	f, err := os.CreateTemp(dir, "mqbench-fdatasync-*")
	if err != nil {
		return nil, fmt.Errorf("mqbench: fdatasync probe: %w", err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	buf := makeBody(size)
	var h Histogram
	begin := time.Now()
	for range count {
		t := time.Now()
		if _, err := f.Write(buf); err != nil {
			return nil, fmt.Errorf("mqbench: fdatasync probe: write: %w", err)
		}
		if err := unix.Fdatasync(int(f.Fd())); err != nil {
			return nil, fmt.Errorf("mqbench: fdatasync probe: %w", err)
		}
		h.Record(time.Since(t))
	}
	abs, _ := filepath.Abs(dir)
	return &SyncReport{Dir: abs, Size: size, Count: count, Seconds: time.Since(begin).Seconds(), Latency: h.Summary()}, nil
}

// newFdatasyncCommand is "mqbench fdatasync": the device's sync latency, beside the sends'.
func newFdatasyncCommand(f *cliFlags) *cobra.Command {
	var dir string
	var count int
	cmd := &cobra.Command{
		Use:   "fdatasync",
		Short: "Measure write+fdatasync latency in a directory (the device under a SYNC_FLUSH broker)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if count < 1 || f.o.Size < 1 {
				return fmt.Errorf("mqbench: fdatasync needs --count and --size of at least 1")
			}
			rep, err := ProbeFdatasync(dir, f.o.Size, count)
			if err != nil {
				return err
			}
			return writeSyncReport(cmd.OutOrStdout(), rep, f.jsonOut)
		},
	}
	cmd.Flags().StringVar(&dir, "dir", ".", "directory on the device to measure")
	cmd.Flags().IntVar(&count, "count", 2000, "write+fdatasync rounds")
	return cmd
}

func writeSyncReport(w io.Writer, r *SyncReport, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	l := r.Latency
	_, err := fmt.Fprintf(w, "fdatasync %s: %d x %d bytes in %.3f s\n         latency p50 %s  p90 %s  p99 %s  p99.9 %s  max %s  mean %s\n",
		r.Dir, r.Count, r.Size, r.Seconds, us(l.P50Us), us(l.P90Us), us(l.P99Us), us(l.P999Us), us(l.MaxUs), us(l.MeanUs))
	return err
}
