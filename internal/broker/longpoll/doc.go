// Package longpoll holds pull requests that found no new message (RocketMQ's PullRequestHoldService).
// A held pull is woken as soon as a matching message is dispatched to its queue, when a periodic
// check finds the queue has grown, or at its suspend deadline; it is then re-run once without
// suspending and answered.
package longpoll
