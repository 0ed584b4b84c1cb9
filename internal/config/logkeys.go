package config

import (
	"strconv"

	"github.com/rocketgo/rocketgo/internal/logging"
)

// LogKeys are the logging keys of broker.conf and namesrv.conf, this implementation's own (Apache
// RocketMQ configures logging in logback XML files instead). The command-line flags of the same
// meaning (--log-level, --log-levels, --log-format, --log-file, --log-max-size, --log-max-age,
// --log-max-backups, --log-compress) win over them.
type LogKeys struct {
	LogLevel          string
	LogLevels         string
	LogFormat         string
	LogFile           string
	LogFileMaxSizeMB  int
	LogFileMaxAgeDays int
	LogFileMaxBackups int
	LogFileCompress   bool
}

// logKeys declares the logging keys of a file whose config holds them at in; they land in the
// logging options at out.
func logKeys[C, T any](in func(*C) *LogKeys, out func(*T) *logging.Options) []key[C, T] {
	to := func(c *C, o *T) { in(c).apply(out(o)) }
	return section("Logging",
		key[C, T]{name: "logLevel", origin: ours, def: "info", to: to,
			doc:   "Level of every logger without a level of its own: debug, info, warn or error.",
			field: func(c *C) any { return &in(c).LogLevel }},
		key[C, T]{name: "logLevels", origin: ours, to: to,
			doc: "Levels per component, `name=level,...`: a name is a logger name or its end (`store`, " +
				"`remoting`, `nsreg`, `store.index`) and covers the loggers below it.",
			field: func(c *C) any { return &in(c).LogLevels }},
		key[C, T]{name: "logFormat", origin: ours, def: "console", to: to,
			doc:   "console or json.",
			field: func(c *C) any { return &in(c).LogFormat }},
		key[C, T]{name: "logFile", origin: ours, defDoc: "(empty = stderr)", to: to,
			doc:   "Write the log to this file instead of stderr; its directory is created. Reopened on SIGHUP.",
			field: func(c *C) any { return &in(c).LogFile }},
		key[C, T]{name: "logFileMaxSizeMB", origin: ours, def: strconv.Itoa(logging.DefaultMaxSizeMB), check: positive,
			to:    to,
			doc:   "Rotate logFile when a write would take it past this many megabytes.",
			field: func(c *C) any { return &in(c).LogFileMaxSizeMB }},
		key[C, T]{name: "logFileMaxAgeDays", origin: ours, to: to,
			doc:   "Delete rotated files older than this many days (0: no age limit).",
			field: func(c *C) any { return &in(c).LogFileMaxAgeDays }},
		key[C, T]{name: "logFileMaxBackups", origin: ours, def: "10", to: to,
			doc:   "Rotated files kept (0: all, within logFileMaxAgeDays).",
			field: func(c *C) any { return &in(c).LogFileMaxBackups }},
		key[C, T]{name: "logFileCompress", origin: ours, to: to,
			doc:   "Gzip rotated files.",
			field: func(c *C) any { return &in(c).LogFileCompress }},
	)
}

// apply writes the keys into o.
func (k *LogKeys) apply(o *logging.Options) {
	o.Level, o.Levels, o.Format, o.Output = k.LogLevel, k.LogLevels, k.LogFormat, k.LogFile
	o.Rotate = logging.Rotation{MaxSizeMB: k.LogFileMaxSizeMB, MaxAgeDays: k.LogFileMaxAgeDays,
		MaxBackups: k.LogFileMaxBackups, Compress: k.LogFileCompress}
}

// checkLog validates the level, the component levels and the format.
func (k *LogKeys) checkLog() []error {
	var errs []error
	for _, f := range []struct {
		key, value string
		err        error
	}{
		{"logLevel", k.LogLevel, logging.CheckLevel(k.LogLevel)},
		{"logLevels", k.LogLevels, logging.CheckLevels(k.LogLevels)},
		{"logFormat", k.LogFormat, logging.CheckFormat(k.LogFormat)},
	} {
		if f.err != nil {
			errs = append(errs, &ValueError{Key: f.key, Value: f.value, Reason: f.err.Error()})
		}
	}
	return errs
}
