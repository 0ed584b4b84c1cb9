package admin

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// TrackType says how far a consumer group got with a message (Java TrackType).
type TrackType string

// Track types.
const (
	Consumed             TrackType = "CONSUMED"
	ConsumedButFiltered  TrackType = "CONSUMED_BUT_FILTERED"
	Pull                 TrackType = "PULL"
	NotConsumeYet        TrackType = "NOT_CONSUME_YET"
	NotOnline            TrackType = "NOT_ONLINE"
	ConsumeBroadcasting  TrackType = "CONSUME_BROADCASTING"
	UnknownTrack         TrackType = "UNKNOWN"
	consumeActivelyModel           = body.ConsumeActively
)

// MessageTrack is one consumer group's progress with a message (Java MessageTrack).
type MessageTrack struct {
	ConsumerGroup string
	TrackType     TrackType
	ExceptionDesc string // "" prints as null
}

// String is Java's MessageTrack.toString.
func (t MessageTrack) String() string {
	desc := t.ExceptionDesc
	if desc == "" {
		desc = "null"
	}
	return fmt.Sprintf("MessageTrack [consumerGroup=%s, trackType=%s, exceptionDesc=%s]", t.ConsumerGroup, t.TrackType, desc)
}

// MessageTracks says, for every group consuming the message's topic, whether it consumed the
// message (Java DefaultMQAdminExt.messageTrackDetail): a pull consumer's progress is its own
// (PULL); a push consumer consumed it when its committed offset of the message's queue is past
// the message, filtered out when its subscription does not take the message's tag.
func (c *Client) MessageTracks(ctx context.Context, m *message.MessageExt) ([]MessageTrack, error) {
	info, err := c.ClusterInfo(ctx)
	if err != nil {
		return nil, err
	}
	_, groups, err := c.TopicGroups(ctx, info, m.Topic)
	if err != nil && len(groups) == 0 {
		return nil, err
	}
	tracks := make([]MessageTrack, 0, len(groups))
	for _, g := range groups {
		tracks = append(tracks, c.track(ctx, info, m, g))
	}
	return tracks, nil
}

func (c *Client) track(ctx context.Context, info *body.ClusterInfo, m *message.MessageExt, group string) MessageTrack {
	mt := MessageTrack{ConsumerGroup: group, TrackType: UnknownTrack}
	cc, err := c.ExamineConsumerConnection(ctx, group)
	if err != nil {
		if IsCode(err, protocol.ConsumerNotOnline) {
			mt.TrackType = NotOnline
		}
		mt.ExceptionDesc = codeDesc(err)
		return mt
	}
	if cc.ConsumeType == consumeActivelyModel {
		mt.TrackType = Pull
		return mt
	}
	consumed, err := c.consumed(ctx, info, m, group)
	switch {
	case IsCode(err, protocol.ConsumerNotOnline):
		mt.TrackType, mt.ExceptionDesc = NotOnline, codeDesc(err)
	case err != nil:
		mt.ExceptionDesc = err.Error()
	case !consumed:
		mt.TrackType = NotConsumeYet
	case filteredOut(cc, m):
		mt.TrackType = ConsumedButFiltered
	default:
		mt.TrackType = Consumed
	}
	return mt
}

// codeDesc is Java's "CODE:206 DESC:..." of a server's refusal, or the error's text.
func codeDesc(err error) string {
	var se *ServerError
	if errors.As(err, &se) {
		return fmt.Sprintf("CODE:%d DESC:%s", int(se.Code), se.Remark)
	}
	return err.Error()
}

// consumed reports whether the group's committed offset of the message's queue, on the master
// that stored it, is past the message.
func (c *Client) consumed(ctx context.Context, info *body.ClusterInfo, m *message.MessageExt, group string) (bool, error) {
	cs, err := c.ExamineConsumeStats(ctx, group)
	if cs == nil {
		return false, err
	}
	for mq, w := range cs.OffsetTable {
		if mq.Topic != m.Topic || mq.QueueID != m.QueueID {
			continue
		}
		bd, ok := info.BrokerAddrTable[mq.BrokerName]
		if ok && bd.BrokerAddrs[body.MasterID] == m.StoreHost.String() && w.ConsumerOffset > m.QueueOffset {
			return true, nil
		}
	}
	return false, nil
}

// filteredOut reports whether the group's subscription of the message's topic leaves its tag out.
func filteredOut(cc *body.ConsumerConnection, m *message.MessageExt) bool {
	sub, ok := cc.SubscriptionTable[m.Topic]
	if !ok || len(sub.TagsSet) == 0 {
		return false
	}
	return !slices.Contains(sub.TagsSet, m.Tags()) && !slices.Contains(sub.TagsSet, "*")
}
