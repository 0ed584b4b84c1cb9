// Package policy holds the broker's decisions that depend only on their inputs: where a failed
// message goes next (retry or dead-letter queue), which delay level applies, which queue a send
// lands in, what a store outcome means for a send or a pull, which broker a consumer pulls from
// next, where a reset moves an offset. Each is a pure function with a table test; the services
// call them, so that a rule is written once whatever the operation or the protocol.
package policy
