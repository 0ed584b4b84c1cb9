package logging

import (
	"fmt"
	"os"
	"strings"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// Options select the logger. The zero value logs info and above to stderr in console format.
type Options struct {
	Level  string // debug, info, warn, error, dpanic, panic, fatal; "" = info
	Format string // console or json; "" = console
	Output string // "", "stderr", "stdout", or a file path (appended to, created 0644)
}

// New builds a logger from opts. Errors name the bad option.
func New(opts Options) (*zap.Logger, error) {
	level := zapcore.InfoLevel
	if opts.Level != "" {
		l, err := zapcore.ParseLevel(strings.ToLower(strings.TrimSpace(opts.Level)))
		if err != nil {
			return nil, fmt.Errorf("logging: level %q: want debug, info, warn or error", opts.Level)
		}
		level = l
	}

	ec := zap.NewProductionEncoderConfig()
	ec.EncodeTime = zapcore.ISO8601TimeEncoder
	ec.EncodeDuration = zapcore.StringDurationEncoder
	var enc zapcore.Encoder
	switch strings.ToLower(strings.TrimSpace(opts.Format)) {
	case "", "console":
		ec.EncodeLevel = zapcore.CapitalLevelEncoder
		enc = zapcore.NewConsoleEncoder(ec)
	case "json":
		enc = zapcore.NewJSONEncoder(ec)
	default:
		return nil, fmt.Errorf("logging: format %q: want console or json", opts.Format)
	}

	var out zapcore.WriteSyncer
	switch opts.Output {
	case "", "stderr":
		out = zapcore.Lock(os.Stderr)
	case "stdout":
		out = zapcore.Lock(os.Stdout)
	default:
		f, err := os.OpenFile(opts.Output, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("logging: open output: %w", err)
		}
		out = zapcore.Lock(f)
	}

	core := zapcore.NewCore(enc, out, level)
	return zap.New(core, zap.AddCaller(), zap.AddStacktrace(zapcore.ErrorLevel),
		zap.ErrorOutput(zapcore.Lock(os.Stderr))), nil
}
