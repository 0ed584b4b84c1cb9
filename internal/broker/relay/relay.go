// Package relay serves the admin requests the broker completes by calling its clients: a
// consumer's running info, consuming one message now, a group's offsets held by its members, and
// resetting a group's offsets to a point in time (committed here, then told to every member).
// Calling a client is per protocol: the Clients the adapter supplies does it.
package relay

import (
	"context"
	"errors"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/broker/client"
	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/lifecycle"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// DefaultCallTimeout bounds a call to a client (Java callConsumer's 5 s).
const DefaultCallTimeout = 5 * time.Second

// minClientVersion is MQVersion V3_0_7_SNAPSHOT's ordinal: older clients know neither the offset
// reset nor the consumer status request.
const minClientVersion = 28

// ErrNotCallable is what Clients returns for a channel of another protocol than its own.
var ErrNotCallable = errors.New("relay: the client's connection cannot take this call")

// Clients calls clients on the protocol they connected with.
type Clients interface {
	// RunningInfo asks a consumer for its running info.
	RunningInfo(ctx context.Context, ch client.Channel, q RunningInfoQuery) (Answer, error)
	// ConsumeDirectly asks a consumer to consume one message now.
	ConsumeDirectly(ctx context.Context, ch client.Channel, q DirectQuery) (Answer, error)
	// ConsumerStatus asks a consumer for the offsets it holds of a topic; nil when it has none.
	ConsumerStatus(ctx context.Context, ch client.Channel, topic, group string) (map[body.MessageQueue]int64, error)
	// ResetOffset tells a consumer its group's offsets were reset (no answer is awaited).
	ResetOffset(ch client.Channel, n ResetNotice) error
}

// Answer is a client's reply, relayed to the requester as it came: Code is the client's own
// answer code in its protocol's numbering, which the broker passes through.
type Answer struct {
	Code   int32
	Remark string
	Body   []byte
}

// RunningInfoQuery names the consumer asked for its running info.
type RunningInfoQuery struct {
	Group    string
	ClientID string
	Jstack   bool
}

// DirectQuery asks a consumer to consume the message Record (its encoded record), whose offset
// message id is MsgID.
type DirectQuery struct {
	Group      string
	ClientID   string
	MsgID      string
	BrokerName string
	Record     []byte
}

// Consumers finds a group's members.
type Consumers interface {
	Channels(group string) []client.ClientChannel
}

// Messages finds a stored message by its offset message id; mayRead, if set, is asked about its
// topic first.
type Messages interface {
	RecordByID(msgID string, mayRead func(topic string) error) ([]byte, error)
}

// Options are the broker settings relays depend on.
type Options struct {
	BrokerName string
	// CallTimeout bounds each call to a client; 0 is DefaultCallTimeout.
	CallTimeout time.Duration
}

// Groups says whether a consumer group exists.
type Groups interface {
	Get(group string) (body.SubscriptionGroupConfig, bool)
}

// Deps are what the service works with; Groups may be nil (every valid group name is taken to
// exist).
type Deps struct {
	Groups    Groups
	Consumers Consumers
	Messages  Messages
	Offsets   Offsets
	Store     Store
	Topics    Topics
	Clients   Clients
}

// Service relays. Close stops it.
type Service struct {
	opts Options
	Deps
	lg *zap.Logger
	// calls owns the goroutines that ask members in parallel.
	calls lifecycle.Group
}

// New returns a Service.
func New(opts Options, deps Deps, lg *zap.Logger) *Service {
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = DefaultCallTimeout
	}
	if lg == nil {
		lg = zap.NewNop()
	}
	return &Service{opts: opts, Deps: deps, lg: lg}
}

// Close refuses further parallel calls and waits for those under way (each ends within the call
// timeout).
func (s *Service) Close() { s.calls.Stop() }

// RunningInfo relays a running-info request to the group's member q.ClientID.
func (s *Service) RunningInfo(ctx context.Context, q RunningInfoQuery) (Answer, error) {
	return s.call(ctx, q.Group, q.ClientID, func(ctx context.Context, ch client.Channel) (Answer, error) {
		return s.Clients.RunningInfo(ctx, ch, q)
	})
}

// ConsumeDirectly loads the message msgID names and asks the group's member clientID to consume
// it now. mayRead, if set, is asked about the message's topic before it is loaded for the client
// (ACL: the id is the requester's, the message may be another topic's).
func (s *Service) ConsumeDirectly(ctx context.Context, group, clientID, msgID string, mayRead func(topic string) error) (Answer, error) {
	rec, err := s.Messages.RecordByID(msgID, mayRead)
	if err != nil {
		return Answer{}, err
	}
	q := DirectQuery{Group: group, ClientID: clientID, MsgID: msgID, BrokerName: s.opts.BrokerName, Record: rec}
	return s.call(ctx, group, clientID, func(ctx context.Context, ch client.Channel) (Answer, error) {
		return s.Clients.ConsumeDirectly(ctx, ch, q)
	})
}

// call runs do on the channel of the group's member clientID within the call timeout, and says
// what went wrong as Java does (AdminBrokerProcessor.callConsumer).
func (s *Service) call(ctx context.Context, group, clientID string, do func(context.Context, client.Channel) (Answer, error)) (Answer, error) {
	ch := s.member(group, clientID)
	if ch == nil {
		return Answer{}, notOnline(group, clientID)
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.CallTimeout)
	defer cancel()
	a, err := do(ctx, ch)
	switch {
	case err == nil:
		return a, nil
	case errors.Is(err, ErrNotCallable):
		return Answer{}, notOnline(group, clientID)
	case errors.Is(err, context.DeadlineExceeded):
		return Answer{}, outcome.Errorf(outcome.ClientTimeout, "consumer <%s> <%s> Timeout: %v", group, clientID, err)
	default:
		return Answer{}, outcome.Errorf(outcome.SystemError, "invoke consumer <%s> <%s> Exception: %v", group, clientID, err)
	}
}

func notOnline(group, clientID string) error {
	return outcome.Errorf(outcome.SystemError, "The Consumer <%s> <%s> not online", group, clientID)
}

// member is the channel of the group's (last registered) member clientID, nil when it has none.
func (s *Service) member(group, clientID string) client.Channel {
	var ch client.Channel
	for _, m := range s.Consumers.Channels(group) {
		if m.ClientID == clientID {
			ch = m.Channel
		}
	}
	return ch
}

// requireClientVersion refuses the request when a member is older than V3_0_7_SNAPSHOT.
func requireClientVersion(members []client.ClientChannel) error {
	for _, m := range members {
		if m.Version < minClientVersion {
			return outcome.Errorf(outcome.SystemError, "the client does not support this feature. version=%d (client %s)",
				m.Version, m.ClientID)
		}
	}
	return nil
}
