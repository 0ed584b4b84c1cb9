// Package logging builds the process's logger from command-line and configuration options: a
// level, per-component levels, console or JSON format, and stderr, stdout or a file that is
// rotated by size, age and count (gopkg.in/natefinch/lumberjack.v2) and reopened on demand (the
// servers do it on SIGHUP). It is the only place that calls zap.New; every other package takes a
// *zap.Logger and treats nil as zap.NewNop().
//
// Loggers are named per component (zap's Named): the servers' root loggers are "broker" and
// "namesrv", their parts "broker.store", "broker.remoting", "namesrv.remoting" and so on, and a
// per-component level applies to a name and everything below it.
package logging
