package acl

import (
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// popRule is the rule of a POP code whose header names a topic and a consumer group: perm on
// both, as Apache's annotations of the POP headers ask (Action.SUB).
func popRule(perm Perm) rule {
	return rule{needs: []need{popTopicNeed(perm), groupNeed(fieldCG, Sub)}}
}

// popTopicNeed is the header's topic, a POP retry topic of the header's group standing for its
// origin topic.
func popTopicNeed(perm Perm) need { return need{field: fieldTopic, perm: perm, popOf: fieldCG} }

// popTopicRes is the resource topic stands for in a request of group: the origin topic of the
// group's POP retry topic, else what topicRes makes of it (a plain retry topic is its group).
func popTopicRes(topic, group string, perm Perm) resource {
	if origin, ok := systopic.PopRetryOrigin(topic, group); ok {
		return topicRes(origin, perm)
	}
	return topicRes(topic, perm)
}

func batchAckResources(b []byte, out []resource) ([]resource, error) {
	ba, err := body.DecodeBatchAckMessageRequestBody(b)
	if err != nil {
		return nil, denied("bad batch ack body: %v", err)
	}
	for _, a := range ba.Acks {
		out = append(out, groupRes(a.ConsumerGroup, Sub), popTopicRes(a.Topic, a.ConsumerGroup, Sub))
	}
	return out, nil
}

func assignmentResources(b []byte, out []resource) ([]resource, error) {
	q, err := body.DecodeQueryAssignmentRequestBody(b)
	if err != nil {
		return nil, denied("bad assignment body: %v", err)
	}
	return append(out, groupRes(q.ConsumerGroup, Sub), topicRes(q.Topic, Sub)), nil
}
