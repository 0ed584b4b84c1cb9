// Package config is broker.conf and namesrv.conf: RocketMQ's Java key names, Apache RocketMQ
// 4.9's defaults, loading, validation, and the mapping onto the components' options. It is the
// only package that imports viper.
//
// Every key is declared once, in one entry of brokerKeys or namesrvKeys (see key): its name, its
// type (the Go type of the struct field it fills), default, range, documentation line and the
// function that writes it where it lands in the options (broker.Options with its store, HA and
// ACL options, namesrv.Options, the metrics listener, the TLS keys). The loader, Validate, the
// effective-configuration log, -p, GET_BROKER_CONFIG, the list of RocketMQ keys accepted and
// ignored, and the key tables of docs/configuration.md are derived from those tables.
//
// Files are Java properties (key=value, key: value or key value; '#'/'!' comments; '\'
// continuations and escapes), read by ParseProperties through a viper codec. Keys match
// case-insensitively; the old spellings mapedFileSizeCommitLog and mapedFileSizeConsumeQueue are
// accepted. An unknown key is a warning naming it; a value that cannot be used is an error naming
// key, value and line, and stops start-up.
//
// Durations are Millis (milliseconds, as the Java keys are) with a Duration method. The loaders
// fill derived values (storePathCommitLog, haListenPort) and apply the corrections RocketMQ makes
// silently (see LoadBroker), so the effective configuration logged by LogEffective is the one the
// server runs with. Broker.Options and Namesrv.Options then map it; TLSKeys.Server loads the
// certificate at start-up.
package config
