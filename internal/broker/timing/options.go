package timing

import (
	"time"

	"github.com/rocketgo/rocketgo/internal/vfs"
)

// Defaults of the options, as broker.conf documents them (docs/configuration.md).
const (
	DefaultPrecisionMs     = 500
	DefaultMaxDelaySec     = 3 * 24 * 3600
	DefaultRollWindowSlots = 2 * 24 * 3600
	DefaultFlushInterval   = time.Second
	// maxRollWindowSlots is Java's bound: 7 days of 1 s slots less 60 (TIMER_BLANK_SLOTS).
	maxRollWindowSlots = 7*24*3600 - blankSlots
	// blankSlots are the wheel's slots beyond the roll window: room for a slave that follows its
	// master's progress a little late.
	blankSlots = 60
)

// Options configure a Service.
type Options struct {
	// RootDir is storePathRootDir: the files are RootDir/timer/{wheel,log/,checkpoint}.
	RootDir string
	// FS is the file system; nil means vfs.Default.
	FS vfs.FS
	// Enable is timerWheelEnable: without it a timer message is refused (SYSTEM_ERROR).
	Enable bool
	// PrecisionMs is timerPrecisionMs, the length of a wheel slot; Java's rounding applies
	// (100, 200, 500 or 1000).
	PrecisionMs int64
	// MaxDelaySec is timerMaxDelaySec: a later delivery time is refused (MESSAGE_ILLEGAL).
	MaxDelaySec int64
	// RollWindowSlots is timerRollWindowSlot: a message due further ahead waits in a roll slot
	// at the window's end and is written again from there. The wheel has this many slots plus 60.
	RollWindowSlots int64
	// FlushInterval is timerFlushIntervalMs: how often the log, the wheel and a checkpoint are
	// made durable.
	FlushInterval time.Duration
	// LogSegmentSize is mappedFileSizeTimerLog.
	LogSegmentSize int64
	// CongestNumEachSlot is timerCongestNumEachSlot: a slot holding more records refuses new
	// timer messages at random, one holding twice as many always (SYSTEM_ERROR). 0 means no limit.
	CongestNumEachSlot int64
	// BrokerName goes into recall handles and must match theirs.
	BrokerName string
	// RecallEnable is recallMessageEnable; AllowRecallWhenNotWriteable is
	// allowRecallWhenBrokerNotWriteable.
	RecallEnable                bool
	AllowRecallWhenNotWriteable bool
	// BrokerPermission is the broker's permission (a recall writes).
	BrokerPermission int
	// Slave: take timer messages into the log, deliver none, and follow the master's progress
	// (SetMasterProgress).
	Slave bool
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Precision rounds a timerPrecisionMs value as Java's MessageStoreConfig.setTimerPrecisionMs.
func Precision(ms int64) int64 {
	candidates := [...]int64{100, 200, 500, 1000}
	for i := 1; i < len(candidates); i++ {
		if ms < candidates[i] {
			return candidates[i-1]
		}
	}
	return candidates[len(candidates)-1]
}

// RollWindow bounds a timerRollWindowSlot value as Java's TimerMessageStore does.
func RollWindow(slots int64) int64 {
	if slots < 2 || slots > maxRollWindowSlots {
		return maxRollWindowSlots
	}
	return slots
}

func (o *Options) setDefaults() {
	if o.FS == nil {
		o.FS = vfs.Default
	}
	if o.PrecisionMs == 0 {
		o.PrecisionMs = DefaultPrecisionMs
	}
	o.PrecisionMs = Precision(o.PrecisionMs)
	if o.MaxDelaySec == 0 {
		o.MaxDelaySec = DefaultMaxDelaySec
	}
	if o.RollWindowSlots == 0 {
		o.RollWindowSlots = DefaultRollWindowSlots
	}
	o.RollWindowSlots = RollWindow(o.RollWindowSlots)
	if o.FlushInterval <= 0 {
		o.FlushInterval = DefaultFlushInterval
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}
