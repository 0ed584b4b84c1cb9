package config

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/logging"
)

// logCases are the cases of the logging keys, which broker.conf and namesrv.conf share; get is
// where a file's options hold the logging options.
func logCases[T any](get func(T) logging.Options) map[string]keyCase[T] {
	is := func(want func(o logging.Options) any, v any) func(*testing.T, T) {
		return func(t *testing.T, o T) { require.Equal(t, v, want(get(o))) }
	}
	return map[string]keyCase[T]{
		"logLevel": {line: "logLevel=debug", want: is(func(o logging.Options) any { return o.Level }, "debug"),
			bad: [][2]string{{"logLevel=chatty", `level "chatty"`}}},
		"logLevels": {line: "logLevels=store=debug,remoting=warn",
			want: is(func(o logging.Options) any { return o.Levels }, "store=debug,remoting=warn"),
			bad:  [][2]string{{"logLevels=store", "want name=level"}}},
		"logFormat": {line: "logFormat=json", want: is(func(o logging.Options) any { return o.Format }, "json"),
			bad: [][2]string{{"logFormat=xml", `format "xml"`}}},
		"logFile": {line: "logFile=/var/log/rocketgo/broker.log",
			want: is(func(o logging.Options) any { return o.Output }, "/var/log/rocketgo/broker.log")},
		"logFileMaxSizeMB": {line: "logFileMaxSizeMB=64",
			want: is(func(o logging.Options) any { return o.Rotate.MaxSizeMB }, 64),
			bad:  [][2]string{{"logFileMaxSizeMB=0", "greater than 0"}}},
		"logFileMaxAgeDays": {line: "logFileMaxAgeDays=7",
			want: is(func(o logging.Options) any { return o.Rotate.MaxAgeDays }, 7)},
		"logFileMaxBackups": {line: "logFileMaxBackups=3",
			want: is(func(o logging.Options) any { return o.Rotate.MaxBackups }, 3)},
		"logFileCompress": {line: "logFileCompress=true",
			want: is(func(o logging.Options) any { return o.Rotate.Compress }, true)},
	}
}

// TestLogDefaults: without logging keys the servers log info to stderr in console format,
// rotating a file (when one is set) at 128 MB with 10 files kept.
func TestLogDefaults(t *testing.T) {
	t.Setenv(EnvNamesrvAddr, "")
	b, err := LoadBroker("", nil, nil)
	require.NoError(t, err)
	o, err := b.Options()
	require.NoError(t, err)
	want := logging.Options{Level: "info", Format: "console",
		Rotate: logging.Rotation{MaxSizeMB: 128, MaxBackups: 10}}
	require.Equal(t, want, o.Log)
	n, err := LoadNamesrv("", nil, nil)
	require.NoError(t, err)
	no, err := n.Options()
	require.NoError(t, err)
	require.Equal(t, want, no.Log)
}
