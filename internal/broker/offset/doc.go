// Package offset holds the consumer groups' committed offsets (Java ConsumerOffsetManager):
// for each "topic@group" and queue id, the next offset the group will consume.
//
// The table lives in memory and is written to <storePathRootDir>/config/consumerOffset.json as
// {"offsetTable":{"topic@group":{"0":12,"1":7}}} every FlushInterval by the goroutine Start
// launches, and once more by Close. Java writes the queue ids unquoted ({0:12}); both forms load.
//
// After an unclean shutdown the store may recover fewer messages than offsets were committed for.
// Clamp moves such offsets back to the recovered end of the queue (and offsets below the first
// retained message up to it) instead of dropping them, so consumers neither skip nor restart from 0.
package offset
