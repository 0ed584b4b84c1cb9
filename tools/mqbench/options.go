package mqbench

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/rocketgo/rocketgo/internal/admin"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// Mode is what a run does.
type Mode string

// Modes.
const (
	ModeProduce Mode = "produce"
	ModeConsume Mode = "consume"
	ModeBoth    Mode = "both" // produce, then consume and check every key arrived
	ModePop     Mode = "pop"  // consume by POP (POP_MESSAGE and acks), as RocketMQ 5 consumers do
)

// Options configure a run. Zero values take the defaults noted; Validate
// applies them.
type Options struct {
	Mode     Mode
	Namesrv  []string // host:port of each name server
	Topic    string   // default "BenchTopic"
	Messages int64    // messages to send (produce) or read (consume); 0 with Duration: unbounded
	Duration time.Duration
	Size     int // body bytes; default 1024

	// Producer.
	Concurrency   int    // senders; default 4
	Window        int    // in-flight requests per sender; default 256
	Batch         int    // messages per request; 1 = SEND_MESSAGE_V2, >1 = SEND_BATCH_MESSAGE
	Connections   int    // TCP connections per broker, shared round-robin by senders; default Concurrency
	ProducerGroup string // default "mqbench_producer"
	Tags          string // TAGS of every message; "" sends none
	// Keys is the KEYS of every message: keys separated by spaces, as RocketMQ separates them,
	// where {seq} stands for the message's sequence number (0, 1, ...), so "order-{seq}" gives
	// each message a key of its own. "" sends none. The check of "both" does not use them: it
	// relies on the UNIQ_KEY mqbench gives every message, whatever Keys says.
	Keys string

	Wait        bool // WAIT property: true asks for the flush (and replication) before the answer
	CreateTopic bool // UPDATE_AND_CREATE_TOPIC on every master first
	Queues      int  // read and write queues for CreateTopic; default 8
	Cluster     string
	Serialize   protocol.SerializeType

	// Consumer.
	Group         string // default "mqbench_consumer"
	Subscription  string // tag expression; default "*" (no filter). A filter pulls one span at a time.
	PullWindow    int    // in-flight pulls per queue; default 4
	PullBatch     int    // maxMsgNums; default 32
	FromCommitted bool   // start at QUERY_CONSUMER_OFFSET and commit the end offsets
	Overlap       bool   // both: consume while producing
	CheckCRC      bool

	// POP (mode pop): PullWindow POPs of PullBatch (at most 32) messages in flight per broker,
	// each message acknowledged by ACK_MESSAGE (PopAck "single", the default) or each answer's by
	// one BATCH_ACK_MESSAGE ("batch"); InvisibleTime is the POP's invisible time (60 s).
	PopAck        string
	InvisibleTime time.Duration

	// IdleTimeout ends consuming when no message arrived for this long;
	// default 10 s.
	IdleTimeout time.Duration

	// Progress, when set, gets a line every ProgressEvery (default 1 s) while the run lasts:
	// messages sent, acknowledged, received and failed so far, and the rates.
	Progress      io.Writer
	ProgressEvery time.Duration

	BrokerPID      int           // 0: no broker CPU figures
	Timeout        time.Duration // limit per phase; default 10 min
	RequestTimeout time.Duration // name server and admin calls, and each send; default 30 s
}

// maxRequestBody leaves room for the header in a 16 MiB frame;
// batchEntryOverhead is a batch entry's fixed fields and properties.
const (
	maxRequestBody     = 15 << 20
	batchEntryOverhead = 120
)

// Defaults.
const (
	DefaultTopic         = "BenchTopic"
	DefaultProducerGroup = "mqbench_producer"
	DefaultConsumerGroup = "mqbench_consumer"
	DefaultNamesrv       = "127.0.0.1:9876"
)

// ParseNamesrv splits a name server list as mqadmin does (';', also ',' or
// spaces, between addresses) and checks each entry is host:port.
func ParseNamesrv(s string) ([]string, error) {
	var out []string
	for _, a := range admin.ParseNamesrvAddrs(s) {
		host, port, err := net.SplitHostPort(a)
		if err != nil || host == "" || port == "" {
			return nil, fmt.Errorf("mqbench: name server %q is not host:port", a)
		}
		out = append(out, a)
	}
	if len(out) == 0 {
		return nil, errors.New("mqbench: no name server address")
	}
	return out, nil
}

// ParseSerialize reads "json" or "rocketmq".
func ParseSerialize(s string) (protocol.SerializeType, error) {
	switch strings.ToLower(s) {
	case "json", "":
		return protocol.JSON, nil
	case "rocketmq":
		return protocol.RocketMQ, nil
	}
	return 0, fmt.Errorf("mqbench: serialize type %q is neither json nor rocketmq", s)
}

// Validate applies the defaults and reports every bad value.
func (o *Options) Validate() error {
	switch o.Mode {
	case ModeProduce, ModeConsume, ModeBoth, ModePop:
	default:
		return fmt.Errorf("mqbench: mode %q is not produce, consume, both or pop", o.Mode)
	}
	setDefault(&o.Topic, DefaultTopic)
	setDefault(&o.ProducerGroup, DefaultProducerGroup)
	setDefault(&o.Group, DefaultConsumerGroup)
	setDefault(&o.Subscription, "*")
	setDefault(&o.Size, 1024)
	setDefault(&o.Concurrency, 4)
	setDefault(&o.Window, 256)
	setDefault(&o.Batch, 1)
	setDefault(&o.Connections, o.Concurrency)
	setDefault(&o.Queues, 8)
	setDefault(&o.PullWindow, 4)
	setDefault(&o.PullBatch, 32)
	setDefault(&o.Timeout, 10*time.Minute)
	setDefault(&o.RequestTimeout, 30*time.Second)
	setDefault(&o.IdleTimeout, 10*time.Second)
	setDefault(&o.PopAck, PopAckSingle)
	setDefault(&o.InvisibleTime, 60*time.Second)
	if len(o.Namesrv) == 0 {
		o.Namesrv = []string{DefaultNamesrv}
	}

	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf("mqbench: "+format, args...)) }
	if err := checkTopic(o.Topic); err != nil {
		errs = append(errs, err)
	}
	if o.Messages < 0 {
		bad("--messages %d is negative", o.Messages)
	}
	if o.Duration < 0 {
		bad("--duration %s is negative", o.Duration)
	}
	if o.Messages == 0 && o.Duration == 0 && o.Mode != ModeConsume && o.Mode != ModePop {
		bad("give --messages or --duration")
	}
	if o.Messages > maxSeq {
		bad("--messages %d is more than %d", o.Messages, int64(maxSeq))
	}
	// Up to the 16 MiB frame limit, so that the broker's maxMessageSize
	// (4 MiB by default) can be tested too.
	if o.Size < 0 || o.Size > maxRequestBody {
		bad("--size %d is outside 0..%d (a frame is at most 16 MiB)", o.Size, maxRequestBody)
	}
	if o.Concurrency < 1 || o.Concurrency > 1024 {
		bad("--concurrency %d is outside 1..1024", o.Concurrency)
	}
	if o.Window < 1 || o.Window > 65536 {
		bad("--window %d is outside 1..65536", o.Window)
	}
	if o.Batch < 1 || o.Batch > 1024 {
		bad("--batch %d is outside 1..1024", o.Batch)
	} else if o.Batch > 1 && int64(o.Batch)*int64(o.batchEntrySize()) > maxRequestBody {
		bad("--batch %d of --size %d makes requests over %d bytes", o.Batch, o.Size, maxRequestBody)
	}
	if o.Connections < 1 || o.Connections > o.Concurrency {
		bad("--connections %d is outside 1..concurrency (%d)", o.Connections, o.Concurrency)
	}
	if o.Queues < 1 || o.Queues > 1024 {
		bad("--queues %d is outside 1..1024", o.Queues)
	}
	if o.PullWindow < 1 || o.PullWindow > 1024 {
		bad("--pull-window %d is outside 1..1024", o.PullWindow)
	}
	if o.PullBatch < 1 || o.PullBatch > 1024 {
		bad("--pull-batch %d is outside 1..1024", o.PullBatch)
	}
	if o.Mode == ModePop && o.PullBatch > 32 {
		bad("--pull-batch %d: a POP takes at most 32 messages", o.PullBatch)
	}
	if o.PopAck != PopAckSingle && o.PopAck != PopAckBatch {
		bad("--pop-ack %q is neither single nor batch", o.PopAck)
	}
	if err := checkProperty("--tags", o.Tags); err != nil {
		errs = append(errs, err)
	}
	if err := checkProperty("--keys", o.Keys); err != nil {
		errs = append(errs, err)
	}
	if o.BrokerPID < 0 {
		bad("--broker-pid %d is negative", o.BrokerPID)
	}
	if o.Timeout < 0 || o.RequestTimeout < 0 || o.IdleTimeout < 0 || o.ProgressEvery < 0 {
		bad("timeouts must not be negative")
	}
	if o.Overlap && o.Mode != ModeBoth {
		bad("--overlap needs mode both")
	}
	if len(errs) == 0 && o.BrokerPID > 0 {
		if _, err := readProcCPU(o.BrokerPID); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func setDefault[T comparable](v *T, def T) {
	var zero T
	if *v == zero {
		*v = def
	}
}

// batchEntrySize bounds one message's entry in a SEND_BATCH_MESSAGE body: its body, fixed
// fields and properties, with room for a 20-digit sequence number in every {seq} of Keys.
func (o *Options) batchEntrySize() int {
	return o.Size + batchEntryOverhead + len(o.Tags) + len(o.Keys) + 20*strings.Count(o.Keys, seqPlaceholder)
}

// maxPropertyLen bounds --tags and --keys: every message's properties must fit their 2-byte
// length in a batch entry and a stored record, with room for mqbench's own.
const maxPropertyLen = 4096

// checkProperty rejects a property value that would break the properties' encoding.
func checkProperty(flag, v string) error {
	if len(v) > maxPropertyLen {
		return fmt.Errorf("mqbench: %s is longer than %d bytes", flag, maxPropertyLen)
	}
	if strings.ContainsAny(v, string([]byte{message.NameValueSeparator, message.PropertySeparator})) {
		return fmt.Errorf("mqbench: %s %q holds a property separator (\\x01 or \\x02)", flag, v)
	}
	return nil
}

// checkTopic applies the broker's topic rules so that a typo fails here
// rather than as a wall of MESSAGE_ILLEGAL answers.
func checkTopic(t string) error {
	if len(t) > 127 {
		return fmt.Errorf("mqbench: topic %q is longer than 127 characters", t)
	}
	for _, c := range t {
		if !(c == '%' || c == '|' || c == '_' || c == '-' ||
			c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return fmt.Errorf("mqbench: topic %q has %q; allowed are letters, digits, %%, |, _ and -", t, c)
		}
	}
	return nil
}
