// Package cli builds the cobra commands behind the binaries (mqnamesrv, mqbroker, mqadmin): it reads the
// configuration, builds the logger, maps broker.conf / namesrv.conf onto the components' options,
// runs them until SIGINT or SIGTERM, and shuts them down in order. It is the only cobra importer.
package cli
