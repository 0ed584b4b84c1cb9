// Package assign serves RocketMQ 5's server-side queue assignment (Java QueryAssignmentProcessor
// and MessageRequestModeManager): which queues of a topic a consumer of a group gets, and whether
// it pulls them or pops them. An operator switches a group's topic between PULL and POP with
// SET_MESSAGE_REQUEST_MODE (mqadmin setConsumeMode); the choice is kept in
// config/messageRequestMode.json, Java's file and format, and a slave copies its master's.
package assign

import (
	"fmt"
	"path/filepath"
	"slices"
	"sync"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/broker/configfile"
	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/names"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// Topics looks topics up.
type Topics interface {
	Get(topic string) (body.TopicConfig, bool)
}

// Groups finds (or auto-creates) consumer groups.
type Groups interface {
	FindOrCreate(group string) (body.SubscriptionGroupConfig, bool)
}

// Consumers lists a group's online members.
type Consumers interface {
	ClientIDs(group string) []string
}

// Routes returns every readable queue of a topic in the cluster (the name server's route);
// ok is false when the topic has none.
type Routes interface {
	TopicQueues(topic string) (queues []body.MessageQueue, ok bool)
}

// Options are the broker settings assignment depends on.
type Options struct {
	// StorePathRootDir holds config/messageRequestMode.json; "" keeps the modes in memory.
	StorePathRootDir string
	// ServerLoadBalancerEnable: false gives every consumer every queue (serverLoadBalancerEnable).
	ServerLoadBalancerEnable bool
	// DefaultMode is the mode of a topic no one set (defaultMessageRequestMode, PULL), and
	// DefaultPopShareQueueNum its share count when that is POP (defaultPopShareQueueNum, -1).
	DefaultMode             string
	DefaultPopShareQueueNum int
	// ModeChanged, when set, is called after a group's mode of a topic changed: the broker tells
	// the group's consumers to rebalance, so that they ask for their assignment at once instead of
	// at their next periodic rebalance (20 s). Java's broker does not; its clients then switch
	// later.
	ModeChanged func(topic, group string)
}

// Service answers assignments and keeps the request modes.
type Service struct {
	opts   Options
	deps   Deps
	lg     *zap.Logger
	file   *configfile.Persister
	mu     sync.Mutex
	modes  map[string]map[string]body.SetMessageRequestModeRequestBody
	seq    uint64
	strats map[string]strategy
}

// Deps are what the service works with.
type Deps struct {
	Topics    Topics
	Groups    Groups
	Consumers Consumers
	Routes    Routes
}

// ConfigPath is where the modes are kept under a store root.
func ConfigPath(root string) string { return filepath.Join(root, "config", "messageRequestMode.json") }

// New loads messageRequestMode.json (or its backup).
func New(opts Options, deps Deps, lg *zap.Logger) (*Service, error) {
	if opts.DefaultMode == "" {
		opts.DefaultMode = body.RequestModePull
	}
	if lg == nil {
		lg = zap.NewNop()
	}
	s := &Service{opts: opts, deps: deps, lg: lg, modes: map[string]map[string]body.SetMessageRequestModeRequestBody{},
		strats: map[string]strategy{"AVG": averagely, "AVG_BY_CIRCLE": byCircle}}
	if opts.StorePathRootDir == "" {
		return s, nil
	}
	s.file = configfile.NewPersister(ConfigPath(opts.StorePathRootDir))
	var w *body.MessageRequestModeSerializeWrapper
	_, err := s.file.Load(func(data []byte) (err error) {
		w, err = body.DecodeMessageRequestModeSerializeWrapper(data)
		return err
	}, lg)
	if err != nil {
		return nil, fmt.Errorf("assign: load message request modes: %w", err)
	}
	if w != nil {
		s.replace(w.MessageRequestModeMap)
	}
	return s, nil
}

// SetMode sets a group's request mode of a topic and writes the file (Java setMessageRequestMode).
// Retry topics are always pulled.
func (s *Service) SetMode(m body.SetMessageRequestModeRequestBody) error {
	if err := checkNames(m.ConsumerGroup, m.Topic); err != nil {
		return err
	}
	if systopic.IsRetry(m.Topic) {
		return outcome.Errorf(outcome.NoPermission, "retry topic is not allowed to set mode")
	}
	if m.Mode != body.RequestModePull && m.Mode != body.RequestModePop {
		return outcome.Errorf(outcome.InvalidParameter, "mode %q is neither PULL nor POP", m.Mode)
	}
	if _, ok := s.deps.Topics.Get(m.Topic); !ok {
		return outcome.Errorf(outcome.TopicNotExist, "topic[%s] not exist", m.Topic)
	}
	if _, ok := s.deps.Groups.FindOrCreate(m.ConsumerGroup); !ok {
		return outcome.Errorf(outcome.GroupNotExist, "subscription group does not exist")
	}
	s.mu.Lock()
	if s.modes[m.Topic] == nil {
		s.modes[m.Topic] = map[string]body.SetMessageRequestModeRequestBody{}
	}
	s.modes[m.Topic][m.ConsumerGroup] = m
	s.seq++
	s.mu.Unlock()
	s.lg.Info("message request mode set", zap.String("topic", m.Topic), zap.String("group", m.ConsumerGroup),
		zap.String("mode", m.Mode), zap.Int("popShareQueueNum", m.PopShareQueueNum))
	if err := s.Persist(); err != nil {
		return err
	}
	if s.opts.ModeChanged != nil {
		s.opts.ModeChanged(m.Topic, m.ConsumerGroup)
	}
	return nil
}

// mode is the request mode of a group's topic: the one set, else the default (PULL for retry
// topics).
func (s *Service) mode(topic, group string) body.SetMessageRequestModeRequestBody {
	s.mu.Lock()
	m, ok := s.modes[topic][group]
	s.mu.Unlock()
	if ok {
		return m
	}
	m = body.SetMessageRequestModeRequestBody{Topic: topic, ConsumerGroup: group, Mode: s.opts.DefaultMode}
	if systopic.IsRetry(topic) {
		m.Mode = body.RequestModePull
	}
	if m.Mode == body.RequestModePop {
		m.PopShareQueueNum = s.opts.DefaultPopShareQueueNum
	}
	return m
}

// Mode is the request mode (body.RequestModePull or body.RequestModePop) of a group's topic: the
// one set, else the default.
func (s *Service) Mode(topic, group string) string { return s.mode(topic, group).Mode }

// All returns every mode set: GET_ALL_MESSAGE_REQUEST_MODE's answer and the file's content.
func (s *Service) All() body.MessageRequestModeSerializeWrapper {
	s.mu.Lock()
	defer s.mu.Unlock()
	return body.MessageRequestModeSerializeWrapper{MessageRequestModeMap: s.copyLocked()}
}

func (s *Service) copyLocked() map[string]map[string]body.SetMessageRequestModeRequestBody {
	out := make(map[string]map[string]body.SetMessageRequestModeRequestBody, len(s.modes))
	for t, gs := range s.modes {
		out[t] = make(map[string]body.SetMessageRequestModeRequestBody, len(gs))
		for g, m := range gs {
			out[t][g] = m
		}
	}
	return out
}

// ReplaceAll takes a master's modes (a slave's metadata sync) and writes the file.
func (s *Service) ReplaceAll(w body.MessageRequestModeSerializeWrapper) error {
	s.replace(w.MessageRequestModeMap)
	return s.Persist()
}

func (s *Service) replace(m map[string]map[string]body.SetMessageRequestModeRequestBody) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.modes = map[string]map[string]body.SetMessageRequestModeRequestBody{}
	for t, gs := range m {
		if len(gs) > 0 {
			s.modes[t] = gs
		}
	}
	s.seq++
}

// Persist writes messageRequestMode.json when it changed.
func (s *Service) Persist() error {
	if s.file == nil {
		return nil
	}
	s.mu.Lock()
	seq := s.seq
	w := body.MessageRequestModeSerializeWrapper{MessageRequestModeMap: s.copyLocked()}
	s.mu.Unlock()
	data, err := body.MarshalIndent(w)
	if err != nil {
		return fmt.Errorf("assign: encode message request modes: %w", err)
	}
	if err := s.file.Write(data, seq); err != nil {
		return fmt.Errorf("assign: persist message request modes: %w", err)
	}
	return nil
}

// Query is one QUERY_ASSIGNMENT.
type Query = body.QueryAssignmentRequestBody

// Assign answers a QUERY_ASSIGNMENT: the client's queues, each with the group's mode of the
// topic. ok false is Java's null set (the topic has no route, the group no members, the strategy
// is unknown): the client keeps its current queues. A topic, group or client id that is not a
// valid name is an error, checked before the topic's route is looked up.
func (s *Service) Assign(q Query) (assigned []body.MessageQueueAssignment, ok bool, err error) {
	if err := checkNames(q.ConsumerGroup, q.Topic); err != nil {
		return nil, false, err
	}
	if err := names.ClientID(q.ClientID); err != nil {
		return nil, false, outcome.Errorf(outcome.InvalidParameter, "%v", err)
	}
	m := s.mode(q.Topic, q.ConsumerGroup)
	mqs, ok := s.balance(q, m)
	if !ok {
		return nil, false, nil
	}
	out := make([]body.MessageQueueAssignment, 0, len(mqs))
	for _, mq := range mqs {
		out = append(out, body.MessageQueueAssignment{MessageQueue: mq, Mode: m.Mode})
	}
	return out, true, nil
}

// balance is Java's doLoadBalance.
func (s *Service) balance(q Query, m body.SetMessageRequestModeRequestBody) ([]body.MessageQueue, bool) {
	all, ok := s.deps.Routes.TopicQueues(q.Topic)
	if !ok {
		return nil, false
	}
	if q.MessageModel == body.MessageModelBroadcasting {
		return all, true
	}
	if q.MessageModel != body.MessageModelClustering && q.MessageModel != "" {
		return nil, false
	}
	if !s.opts.ServerLoadBalancerEnable {
		return all, true
	}
	cids := slices.Sorted(slices.Values(s.deps.Consumers.ClientIDs(q.ConsumerGroup)))
	strat, known := s.strats[q.StrategyName]
	if len(cids) == 0 || !known {
		return nil, false
	}
	slices.SortFunc(all, body.MessageQueue.Compare)
	if m.Mode == body.RequestModePop {
		return allocatePop(strat, q.ClientID, all, cids, m.PopShareQueueNum), true
	}
	return strat(q.ClientID, all, cids), true
}
