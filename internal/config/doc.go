// Package config is the schema of broker.conf and namesrv.conf: RocketMQ's Java key names,
// Apache RocketMQ 4.9's defaults, loading and validation. It is the only package that imports
// viper.
//
// Files are Java properties (key=value, key: value or key value; '#'/'!' comments; '\'
// continuations and escapes), read by ParseProperties through a viper codec. Keys match the
// struct fields case-insensitively; the old spellings mapedFileSizeCommitLog and
// mapedFileSizeConsumeQueue are accepted. An unknown key is a warning naming it; a value that
// cannot be used is an error naming key, value and line, and stops start-up.
//
// Durations are Millis (milliseconds, as the Java keys are) with a Duration method. The loaders
// fill derived values (storePathCommitLog, haListenPort) and apply the corrections RocketMQ makes
// silently (see LoadBroker), so the effective configuration logged by LogEffective is the one the
// server runs with. docs/configuration.md lists every key.
package config
