package clicommon

import (
	"errors"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/rocketgo/rocketgo/internal/logging"
)

// LogFlags are the logging flags both servers take. A flag given on the command line wins over
// the file's logging key of the same meaning (logLevel, logLevels, logFormat, logFile,
// logFileMaxSizeMB, logFileMaxAgeDays, logFileMaxBackups, logFileCompress).
type LogFlags struct {
	flags *pflag.FlagSet
	opts  logging.Options
}

// Register adds the logging flags to cmd.
func (f *LogFlags) Register(cmd *cobra.Command) {
	fs := cmd.Flags()
	f.flags = fs
	fs.StringVar(&f.opts.Level, "log-level", "info", "log level: debug, info, warn, error (key logLevel)")
	fs.StringVar(&f.opts.Levels, "log-levels", "", "levels per component, e.g. 'store=debug,remoting=warn' (key logLevels)")
	fs.StringVar(&f.opts.Format, "log-format", "console", "log format: console or json (key logFormat)")
	fs.StringVar(&f.opts.Output, "log-file", "", "log to this file instead of stderr; its directory is created, SIGHUP reopens it (key logFile)")
	fs.IntVar(&f.opts.Rotate.MaxSizeMB, "log-max-size", logging.DefaultMaxSizeMB, "rotate the log file at this many megabytes (key logFileMaxSizeMB)")
	fs.IntVar(&f.opts.Rotate.MaxAgeDays, "log-max-age", 0, "delete rotated log files older than this many days; 0 keeps them (key logFileMaxAgeDays)")
	fs.IntVar(&f.opts.Rotate.MaxBackups, "log-max-backups", 10, "rotated log files kept; 0 keeps all (key logFileMaxBackups)")
	fs.BoolVar(&f.opts.Rotate.Compress, "log-compress", false, "gzip rotated log files (key logFileCompress)")
}

// Merge is fromFile with every logging flag given on the command line put over it.
func (f *LogFlags) Merge(fromFile logging.Options) logging.Options {
	o := fromFile
	for flag, apply := range map[string]func(){
		"log-level":       func() { o.Level = f.opts.Level },
		"log-levels":      func() { o.Levels = f.opts.Levels },
		"log-format":      func() { o.Format = f.opts.Format },
		"log-file":        func() { o.Output = f.opts.Output },
		"log-max-size":    func() { o.Rotate.MaxSizeMB = f.opts.Rotate.MaxSizeMB },
		"log-max-age":     func() { o.Rotate.MaxAgeDays = f.opts.Rotate.MaxAgeDays },
		"log-max-backups": func() { o.Rotate.MaxBackups = f.opts.Rotate.MaxBackups },
		"log-compress":    func() { o.Rotate.Compress = f.opts.Rotate.Compress },
	} {
		if f.flags != nil && f.flags.Changed(flag) {
			apply()
		}
	}
	return o
}

// Open builds the server's logger, named name, from the file's logging options and the flags,
// and writes to it what startup recorded while the configuration was loaded.
func (f *LogFlags) Open(fromFile logging.Options, name string, startup *Startup) (*logging.Logger, error) {
	o := f.Merge(fromFile)
	o.Name = name
	lg, err := logging.New(o)
	if err != nil {
		return nil, f.Report(startup, err)
	}
	startup.Replay(lg.Logger)
	return lg, nil
}

// Report writes what startup recorded to a logger made from the flags alone (stderr unless
// --log-file) and returns err: when the configuration could not be loaded its logging keys are
// unknown, and its warnings must not be lost; -p, which serves nothing, reports them the same way.
func (f *LogFlags) Report(startup *Startup, err error) error {
	lg, lerr := logging.New(f.Merge(logging.Options{}))
	if lerr != nil {
		return errors.Join(err, lerr)
	}
	startup.Replay(lg.Logger)
	_ = lg.Close()
	return err
}

// Startup records what is logged before the server's logger exists (while the configuration is
// loaded: its logging keys say what the logger is), to be written to that logger once it does.
type Startup struct {
	lg   *zap.Logger
	logs *observer.ObservedLogs
}

// NewStartup returns an empty record.
func NewStartup() *Startup {
	core, logs := observer.New(zapcore.DebugLevel)
	return &Startup{lg: zap.New(core, zap.AddCaller()).Named("config"), logs: logs}
}

// Logger is the logger that records.
func (s *Startup) Logger() *zap.Logger { return s.lg }

// Replay writes every recorded entry to lg (those lg's levels let through), under lg's name, once.
func (s *Startup) Replay(lg *zap.Logger) {
	for _, e := range s.logs.TakeAll() {
		ent := e.Entry
		if root := lg.Name(); root != "" {
			ent.LoggerName = root + "." + ent.LoggerName
		}
		if ce := lg.Core().Check(ent, nil); ce != nil {
			ce.Write(e.Context...)
		}
	}
}
