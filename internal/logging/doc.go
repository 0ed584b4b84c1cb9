// Package logging builds the process's *zap.Logger from command-line options (level, console or
// JSON format, stderr/stdout or a file). It is the only place that calls zap.New; every other
// package takes a *zap.Logger and treats nil as zap.NewNop().
package logging
