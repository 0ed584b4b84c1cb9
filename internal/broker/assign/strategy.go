package assign

import (
	"slices"

	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// strategy is an allocation strategy (Java AllocateMessageQueueStrategy): the queues of all,
// sorted, that client gets among cids, sorted. A client not among cids gets none.
type strategy func(client string, all []body.MessageQueue, cids []string) []body.MessageQueue

// averagely is Java's AllocateMessageQueueAveragely ("AVG"): consecutive runs of queues, the
// first clients one more when the queues do not divide evenly.
func averagely(client string, all []body.MessageQueue, cids []string) []body.MessageQueue {
	index := slices.Index(cids, client)
	if index < 0 || len(all) == 0 {
		return nil
	}
	n, c := len(all), len(cids)
	mod := n % c
	size := n / c
	switch {
	case n <= c:
		size = 1
	case mod > 0 && index < mod:
		size++
	}
	start := index*size + mod
	if mod > 0 && index < mod {
		start = index * size
	}
	var out []body.MessageQueue
	for i := 0; i < min(size, n-start); i++ {
		out = append(out, all[start+i])
	}
	return out
}

// byCircle is Java's AllocateMessageQueueAveragelyByCircle ("AVG_BY_CIRCLE"): every c-th queue.
func byCircle(client string, all []body.MessageQueue, cids []string) []body.MessageQueue {
	index := slices.Index(cids, client)
	if index < 0 {
		return nil
	}
	var out []body.MessageQueue
	for i := index; i < len(all); i += len(cids) {
		out = append(out, all[i])
	}
	return out
}

// allocatePop is Java's allocate4Pop: with share ≤ 0 or at least every other client, each client
// pops every queue, named as queue -1 of each broker (Java's set keeps one of each); otherwise a client pops its own
// queues and those of the share clients after it, or, with more clients than queues, one queue.
func allocatePop(strat strategy, client string, all []body.MessageQueue, cids []string, share int) []body.MessageQueue {
	if share <= 0 || share >= len(cids)-1 {
		var out []body.MessageQueue
		for _, mq := range all {
			whole := body.MessageQueue{Topic: mq.Topic, BrokerName: mq.BrokerName, QueueID: -1}
			if !slices.Contains(out, whole) {
				out = append(out, whole)
			}
		}
		return out
	}
	index := slices.Index(cids, client)
	if index < 0 {
		return nil
	}
	if len(cids) > len(all) {
		return []body.MessageQueue{all[index%len(all)]}
	}
	out := strat(client, all, cids)
	for i := 1; i <= share; i++ {
		out = append(out, strat(cids[(index+i)%len(cids)], all, cids)...)
	}
	return out
}
