// Package timer is the durable part of timer (scheduled) messages: the timer log, the timer wheel
// and the checkpoint that ties them together (docs/timer.md draws the three files).
//
// The timer log is an append-only sequence of fixed 64-byte records, one per timer message taken
// from rmq_sys_wheel_timer, each pointing at the previous record of the same wheel slot. The
// wheel is a fixed ring of 32-byte slots, one per precision interval of the roll window; a slot
// holds the first and last log position of its records, so the records due in one interval are a
// linked list in the log and memory does not grow with the number of pending timers. The
// checkpoint records how far the log is durable and reflected in the wheel, and how far delivery
// got.
//
// The package knows files (through internal/vfs) and these three formats only: what a record
// means, when it is due and where it is delivered is internal/broker/timing's.
package timer
