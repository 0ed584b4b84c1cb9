package mqbench

import (
	"errors"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"go.uber.org/zap"
)

// ErrRunFailed is returned by the command when the run finished but
// something went wrong in it: error responses, unread or missing messages.
var ErrRunFailed = errors.New("mqbench: the run had failures (see the report)")

// cliFlags are the command line values before they become Options.
type cliFlags struct {
	namesrv    string
	serialize  string
	jsonOut    bool
	progress   time.Duration
	verbose    bool
	allowFails bool
	o          Options
}

// NewCommand returns the mqbench command: "mqbench produce|consume|both".
// It lives with the tool rather than in internal/cli, which holds the
// commands of the shipped binaries (docs/architecture.md, "Tools").
func NewCommand() *cobra.Command { return newCommand(runAndReport) }

// runFunc runs a benchmark with validated options.
type runFunc func(cmd *cobra.Command, o Options, f *cliFlags) error

func newCommand(run runFunc) *cobra.Command {
	f := &cliFlags{}
	root := &cobra.Command{
		Use:   "mqbench",
		Short: "Load generator and checker for RocketMQ brokers (pipelined remoting client)",
		Long: `mqbench sends and reads messages over RocketMQ's remoting protocol with many
requests in flight per connection, so that it measures the broker rather than
itself. "both" produces, reads everything back and checks every acknowledged
UNIQ_KEY arrived exactly once.`,
		SilenceUsage: true,
	}
	root.CompletionOptions.DisableDefaultCmd = true
	pf := root.PersistentFlags()
	def := os.Getenv("NAMESRV_ADDR")
	if def == "" {
		def = DefaultNamesrv
	}
	pf.StringVarP(&f.namesrv, "namesrvAddr", "n", def, "name servers, host:port separated by ';' ($NAMESRV_ADDR when set), as mqadmin's -n")
	// The flag's name before it followed mqadmin's; kept so that scripts keep working.
	pf.StringVar(&f.namesrv, "namesrv", def, "old name of --namesrvAddr")
	_ = pf.MarkHidden("namesrv")
	pf.StringVar(&f.o.Topic, "topic", DefaultTopic, "topic")
	pf.Int64Var(&f.o.Messages, "messages", 0, "messages to send, or to read with consume (0 with consume: up to the queue ends)")
	pf.DurationVar(&f.o.Duration, "duration", 0, "send for this long instead of a message count")
	pf.IntVar(&f.o.Size, "size", 1024, "message body bytes")
	pf.IntVar(&f.o.Concurrency, "concurrency", 4, "senders")
	pf.IntVar(&f.o.Window, "window", 256, "requests in flight per sender")
	pf.IntVar(&f.o.Batch, "batch", 1, "messages per request: 1 sends SEND_MESSAGE_V2, more SEND_BATCH_MESSAGE")
	pf.IntVar(&f.o.Connections, "connections", 0, "TCP connections per broker, shared by the senders (default: one per sender)")
	pf.StringVar(&f.o.ProducerGroup, "producer-group", DefaultProducerGroup, "producer group")
	pf.StringVar(&f.o.Tags, "tags", "", "TAGS of every message sent")
	pf.StringVar(&f.o.Keys, "keys", "", "KEYS of every message sent, separated by spaces; {seq} is the message's sequence number, e.g. 'order-{seq}'")
	pf.StringVar(&f.o.Subscription, "subscription", "*", "consumer's tag expression, e.g. 'TagA||TagB'; a filter reads each queue one pull at a time")
	pf.BoolVar(&f.o.Wait, "wait", true, "WAIT property: ask the broker to answer after the flush (SYNC_FLUSH)")
	pf.BoolVar(&f.o.CreateTopic, "create-topic", false, "create the topic on every master with UPDATE_AND_CREATE_TOPIC first")
	pf.IntVar(&f.o.Queues, "queues", 8, "read and write queues per master for --create-topic")
	pf.StringVar(&f.o.Cluster, "cluster", "", "cluster for --create-topic (default: every cluster)")
	pf.StringVar(&f.o.Group, "group", DefaultConsumerGroup, "consumer group")
	pf.IntVar(&f.o.PullWindow, "pull-window", 4, "pulls in flight per queue")
	pf.IntVar(&f.o.PullBatch, "pull-batch", 32, "maxMsgNums of each pull")
	pf.BoolVar(&f.o.FromCommitted, "from-committed", false, "consume from the group's committed offsets (QUERY_CONSUMER_OFFSET) and commit where it stopped")
	pf.BoolVar(&f.o.Overlap, "overlap", false, "both: consume while producing instead of after")
	pf.BoolVar(&f.o.CheckCRC, "check-crc", true, "check every pulled record's body CRC")
	pf.IntVar(&f.o.BrokerPID, "broker-pid", 0, "broker process id: report its CPU time per message (from /proc/PID/stat)")
	pf.DurationVar(&f.o.Timeout, "timeout", 10*time.Minute, "limit for each phase")
	pf.DurationVar(&f.o.IdleTimeout, "idle-timeout", 10*time.Second, "stop consuming when no message arrived for this long")
	pf.DurationVar(&f.o.RequestTimeout, "request-timeout", 30*time.Second, "limit for name server and admin calls, and for draining sends at the end")
	pf.StringVar(&f.serialize, "serialize", "json", "request header encoding: json (as every client) or rocketmq")
	pf.BoolVar(&f.jsonOut, "json", false, "print the report as JSON")
	pf.DurationVar(&f.progress, "progress", DefaultProgressEvery, "print progress to stderr this often while the run lasts (0: never); the report stays on stdout")
	pf.BoolVarP(&f.verbose, "verbose", "v", false, "log connections and protocol problems to stderr")
	pf.BoolVar(&f.allowFails, "allow-failures", false, "exit 0 even if the run had failures")

	for _, m := range []struct {
		mode  Mode
		short string
	}{
		{ModeProduce, "Send messages and report throughput, latency and errors"},
		{ModeConsume, "Pull messages and report throughput"},
		{ModeBoth, "Send, read everything back and check every acknowledged key arrived once"},
	} {
		root.AddCommand(&cobra.Command{
			Use:   string(m.mode),
			Short: m.short,
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				o, err := f.options(m.mode)
				if err != nil {
					return err
				}
				return run(cmd, o, f)
			},
		})
	}
	root.AddCommand(newFdatasyncCommand(f))
	return root
}

// options turns the flags into Options.
func (f *cliFlags) options(mode Mode) (Options, error) {
	o := f.o
	o.Mode, o.ProgressEvery = mode, f.progress
	var err error
	if o.Namesrv, err = ParseNamesrv(f.namesrv); err != nil {
		return o, err
	}
	if o.Serialize, err = ParseSerialize(f.serialize); err != nil {
		return o, err
	}
	return o, o.Validate()
}

// runAndReport runs the benchmark and prints its report.
func runAndReport(cmd *cobra.Command, o Options, f *cliFlags) error {
	var err error
	lg := zap.NewNop()
	if f.verbose {
		if lg, err = zap.NewDevelopment(); err != nil {
			return err
		}
		defer func() { _ = lg.Sync() }()
	}
	if o.ProgressEvery > 0 {
		o.Progress = cmd.ErrOrStderr()
	}
	rep, err := Run(cmd.Context(), o, lg)
	if err != nil {
		return err
	}
	if err := writeReport(cmd.OutOrStdout(), rep, f.jsonOut); err != nil {
		return err
	}
	if !f.allowFails && rep.Failed() {
		return ErrRunFailed
	}
	return nil
}

func writeReport(w io.Writer, rep *Report, asJSON bool) error {
	if asJSON {
		return rep.WriteJSON(w)
	}
	return rep.WriteText(w)
}

// Failed reports whether a phase had errors or fell short, or the check
// found messages missing or duplicated.
func (r *Report) Failed() bool {
	for _, p := range []*PhaseReport{r.Produce, r.Consume} {
		if p != nil && (p.Errors > 0 || !p.Complete || p.BadCRC > 0 || p.Misplaced > 0 || p.BadAnswers > 0) {
			return true
		}
	}
	return r.Verify != nil && !r.Verify.OK()
}

// String is the report as text.
func (r *Report) String() string {
	var b strings.Builder
	_ = r.WriteText(&b)
	return b.String()
}
