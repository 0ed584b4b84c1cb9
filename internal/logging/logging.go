package logging

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"gopkg.in/natefinch/lumberjack.v2"
)

// Options select the logger. The zero value logs info and above to stderr in console format.
type Options struct {
	Level  string // debug, info, warn, error, dpanic, panic, fatal; "" = info
	Levels string // per-component levels, "store=debug,remoting=warn" (see ParseLevels); "" = none
	Format string // console or json; "" = console
	Output string // "", "stderr", "stdout", or a file path (appended to; its directory is created)
	Name   string // the root logger's name ("broker", "namesrv"); "" = unnamed
	Rotate Rotation
}

// Rotation limits a log file (Output a path): when a write would take it past MaxSizeMB it is
// renamed with a timestamp (name-2006-01-02T15-04-05.000.ext) and a new one started; old files
// beyond MaxBackups or older than MaxAgeDays are deleted, and gzipped first when Compress.
type Rotation struct {
	MaxSizeMB  int  // megabytes per file before it is rotated; 0 = 128
	MaxAgeDays int  // days rotated files are kept; 0 = no age limit
	MaxBackups int  // rotated files kept; 0 = all (within MaxAgeDays)
	Compress   bool // gzip rotated files
}

// DefaultMaxSizeMB is the size a log file is rotated at when Rotation.MaxSizeMB is 0 (Apache
// RocketMQ's logback configuration rotates broker.log at 128 MB too).
const DefaultMaxSizeMB = 128

// Logger is the process's *zap.Logger and the file it writes, if any.
type Logger struct {
	*zap.Logger
	file *lumberjack.Logger // nil when writing to stderr or stdout
}

// New builds a logger from opts. Errors name the bad option. A file output is created (with its
// directory) before New returns, so that a path that cannot be written stops start-up.
func New(opts Options) (*Logger, error) {
	level, err := parseLevel(opts.Level)
	if err != nil {
		return nil, err
	}
	levels, err := ParseLevels(opts.Levels)
	if err != nil {
		return nil, err
	}
	enc, err := encoder(opts.Format)
	if err != nil {
		return nil, err
	}
	out, file, err := output(opts.Output, opts.Rotate)
	if err != nil {
		return nil, err
	}
	core := newComponentCore(enc, out, level, levels)
	lg := zap.New(core, zap.AddCaller(), zap.AddStacktrace(zapcore.ErrorLevel),
		zap.ErrorOutput(zapcore.Lock(os.Stderr)))
	if opts.Name != "" {
		lg = lg.Named(opts.Name)
	}
	return &Logger{Logger: lg, file: file}, nil
}

// Nop is a logger that writes nothing.
func Nop() *Logger { return &Logger{Logger: zap.NewNop()} }

// File is the path written to, or "" for stderr and stdout.
func (l *Logger) File() string {
	if l.file == nil {
		return ""
	}
	return l.file.Filename
}

// Reopen closes the log file; the next line opens the path again, creating it if it was moved
// away (logrotate's "create" followed by a SIGHUP) and appending to it otherwise. It does nothing
// when the output is stderr or stdout.
func (l *Logger) Reopen() error {
	if l.file == nil {
		return nil
	}
	_ = l.Sync()
	if err := l.file.Close(); err != nil {
		return fmt.Errorf("logging: close %s: %w", l.file.Filename, err)
	}
	return nil
}

// Close flushes and closes the log file (lines logged afterwards reopen it). For stderr and stdout
// it only flushes, ignoring the error some terminals and pipes give to a sync.
func (l *Logger) Close() error {
	if l.file == nil {
		_ = l.Sync()
		return nil
	}
	return errors.Join(l.Sync(), l.file.Close())
}

func parseLevel(text string) (zapcore.Level, error) {
	if strings.TrimSpace(text) == "" {
		return zapcore.InfoLevel, nil
	}
	l, err := zapcore.ParseLevel(strings.ToLower(strings.TrimSpace(text)))
	if err != nil {
		return l, fmt.Errorf("logging: level %q: want debug, info, warn or error", text)
	}
	return l, nil
}

func encoder(format string) (zapcore.Encoder, error) {
	ec := zap.NewProductionEncoderConfig()
	ec.EncodeTime = zapcore.ISO8601TimeEncoder
	ec.EncodeDuration = zapcore.StringDurationEncoder
	switch strings.ToLower(strings.TrimSpace(format)) {
	case "", "console":
		ec.EncodeLevel = zapcore.CapitalLevelEncoder
		return zapcore.NewConsoleEncoder(ec), nil
	case "json":
		return zapcore.NewJSONEncoder(ec), nil
	}
	return nil, fmt.Errorf("logging: format %q: want console or json", format)
}

// output opens where lines go: stderr, stdout, or a rotated file.
func output(path string, r Rotation) (zapcore.WriteSyncer, *lumberjack.Logger, error) {
	switch path {
	case "", "stderr":
		return zapcore.Lock(os.Stderr), nil, nil
	case "stdout":
		return zapcore.Lock(os.Stdout), nil, nil
	}
	if r.MaxSizeMB < 0 || r.MaxAgeDays < 0 || r.MaxBackups < 0 {
		return nil, nil, fmt.Errorf("logging: rotation of %s: sizes, ages and counts must not be negative", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, nil, fmt.Errorf("logging: create the directory of %s: %w", path, err)
	}
	size := r.MaxSizeMB
	if size == 0 {
		size = DefaultMaxSizeMB
	}
	f := &lumberjack.Logger{Filename: path, MaxSize: size, MaxAge: r.MaxAgeDays, MaxBackups: r.MaxBackups,
		Compress: r.Compress, LocalTime: false}
	if _, err := f.Write(nil); err != nil { // opens (or creates) the file now
		return nil, nil, fmt.Errorf("logging: open output %s: %w", path, err)
	}
	return zapcore.AddSync(f), f, nil
}

// CheckLevel reports whether text is a level New accepts.
func CheckLevel(text string) error {
	_, err := parseLevel(text)
	return err
}

// CheckLevels reports whether text is a list of component levels New accepts.
func CheckLevels(text string) error {
	_, err := ParseLevels(text)
	return err
}

// CheckFormat reports whether text is a format New accepts.
func CheckFormat(text string) error {
	_, err := encoder(text)
	return err
}
