// Package timing delivers timer messages: messages sent with TIMER_DELIVER_MS, TIMER_DELAY_SEC
// or TIMER_DELAY_MS, stored first in rmq_sys_wheel_timer and delivered to their real topic when
// their time comes (RocketMQ 5's TimerMessageStore), and withdraws them on RECALL_MESSAGE.
//
// The send side (Divert) turns such a message into its timer form, or refuses it as Java's
// HookUtils does. One goroutine then does all the rest, in an order that makes the outcome
// depend only on the stored messages:
//
//   - it takes every new rmq_sys_wheel_timer message into the timer log and wheel
//     (internal/timer), in the slot of its time, or of its store time when it was stored late,
//     or, beyond the roll window, in a roll slot from which it is written again nearer its time;
//   - a slot is processed once it is due and every message that could belong to it has been
//     taken (its interval has passed both the clock and the store time of the next message):
//     its records are delivered newest first, recalled ones left out;
//   - once a second it makes the log and the wheel durable and records a checkpoint of both, and
//     of how far delivery got, which it writes once the CommitLog is flushed past every message it
//     had delivered by then.
//
// After a crash the records after the checkpoint are replayed into the wheel, and processing
// resumes from the checkpoint's slot and record: for each message it would deliver it first
// looks, in the CommitLog written since the checkpoint, for the delivery it made before the crash
// (same topic, UNIQ_KEY, and TIMER_DEQUEUE_MS set); found, it is not written again. So a timer
// message is delivered exactly once across kill -9 (docs/timer.md).
package timing
