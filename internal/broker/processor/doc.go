// Package processor holds the broker's request handlers. Each handler parses its header with
// protocol.Fields, calls the store or a manager, and returns either a response or an error; the one
// function respond maps errors to RocketMQ response codes and remarks, so handlers stay thin.
package processor
