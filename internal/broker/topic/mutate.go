package topic

import (
	"fmt"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/names"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// Put creates or replaces a topic (UPDATE_AND_CREATE_TOPIC) and persists the table.
func (m *Manager) Put(tc body.TopicConfig) error {
	if err := ValidateTopic(tc.TopicName); err != nil {
		return err
	}
	if tc.TopicFilterType == "" {
		tc.TopicFilterType = body.SingleTag
	}
	m.mu.Lock()
	m.mu.topics[tc.TopicName] = tc
	seq := m.changedLocked()
	m.mu.Unlock()
	m.lg.Info("topic updated", zap.String("topic", tc.TopicName), zap.Int("perm", tc.Perm),
		zap.Int("readQueueNums", tc.ReadQueueNums), zap.Int("writeQueueNums", tc.WriteQueueNums))
	perr := m.persist(seq)
	m.notify(Change{Topic: tc})
	return perr
}

// PutAll creates or replaces several topics (UPDATE_AND_CREATE_TOPIC_LIST) with one write of
// topics.json, so that n topics cost one file's bytes rather than n. A name ValidateTopic refuses
// fails the whole list before anything changes.
func (m *Manager) PutAll(list []body.TopicConfig) error {
	for i := range list {
		if err := ValidateTopic(list[i].TopicName); err != nil {
			return err
		}
	}
	m.mu.Lock()
	for _, tc := range list {
		if tc.TopicFilterType == "" {
			tc.TopicFilterType = body.SingleTag
		}
		m.mu.topics[tc.TopicName] = tc
	}
	seq := m.changedLocked()
	m.mu.Unlock()
	m.lg.Info("topics updated", zap.Int("count", len(list)))
	perr := m.persist(seq)
	for _, tc := range list {
		m.notify(Change{Topic: tc})
	}
	return perr
}

// Delete removes a topic and persists the table. It reports whether the topic existed.
func (m *Manager) Delete(topic string) (bool, error) {
	m.mu.Lock()
	tc, ok := m.mu.topics[topic]
	if !ok {
		m.mu.Unlock()
		return false, nil
	}
	delete(m.mu.topics, topic)
	seq := m.changedLocked()
	m.mu.Unlock()
	m.lg.Info("topic deleted", zap.String("topic", topic))
	perr := m.persist(seq)
	m.notify(Change{Topic: tc, Deleted: true})
	return true, perr
}

// CreateTopicInSendMessage returns the topic's config, creating it from defaultTopic when it does
// not exist (Java createTopicInSendMessageMethod). Creation needs defaultTopic to exist with the
// inherit bit; the new topic gets min(clientQueueNums, default's write queues) queues, the
// default's perm without inherit, and sysFlag. ok is false when the topic neither exists nor can
// be created; the caller answers TOPIC_NOT_EXIST.
func (m *Manager) CreateTopicInSendMessage(topic, defaultTopic string, clientQueueNums, sysFlag int) (tc body.TopicConfig, ok bool) {
	tc, ok, _ = m.CreateTopicInSendMessageFor(0, topic, defaultTopic, clientQueueNums, sysFlag)
	return tc, ok
}

// CreateTopicInSendMessageFor is CreateTopicInSendMessage for a send of the connection owner: a
// topic it would create beyond what Options.Admit lets owner create is not created, and the
// refusal is returned (ok false).
func (m *Manager) CreateTopicInSendMessageFor(owner uint64, topic, defaultTopic string, clientQueueNums, sysFlag int) (tc body.TopicConfig, ok bool, refused error) {
	m.mu.Lock()
	if tc, ok := m.mu.topics[topic]; ok {
		m.mu.Unlock()
		return tc, true, nil
	}
	def, found := m.mu.topics[defaultTopic]
	if !found {
		m.mu.Unlock()
		m.lg.Warn("cannot create topic: default topic does not exist",
			zap.String("topic", topic), zap.String("defaultTopic", names.Quote(defaultTopic)))
		return body.TopicConfig{}, false, nil
	}
	perm := def.Perm
	if defaultTopic == systopic.AutoCreate && !m.opts.AutoCreateTopicEnable {
		perm = body.PermRead | body.PermWrite // TBW102 left in topics.json no longer inherits
	}
	if perm&body.PermInherit == 0 {
		m.mu.Unlock()
		m.lg.Warn("cannot create topic: default topic is not inheritable",
			zap.String("topic", topic), zap.String("defaultTopic", names.Quote(defaultTopic)), zap.Int("perm", perm))
		return body.TopicConfig{}, false, nil
	}
	if m.opts.Admit != nil {
		if err := m.opts.Admit(owner, 1); err != nil {
			m.mu.Unlock()
			return body.TopicConfig{}, false, err
		}
	}
	queues := max(min(clientQueueNums, def.WriteQueueNums), 0)
	tc = body.NewTopicConfig(topic)
	tc.ReadQueueNums, tc.WriteQueueNums = queues, queues
	tc.Perm = perm &^ body.PermInherit
	tc.TopicSysFlag = sysFlag
	tc.TopicFilterType = def.TopicFilterType
	m.createLocked(tc, "send")
	return tc, true, nil
}

// CreateTopicInSendMessageBack returns the topic's config, creating it with the given queues,
// perm and sysFlag when it does not exist (Java createTopicInSendMessageBackMethod; %RETRY% and
// %DLQ% topics use 1 queue, RW).
func (m *Manager) CreateTopicInSendMessageBack(topic string, queueNums, perm, sysFlag int) body.TopicConfig {
	m.mu.Lock()
	if tc, ok := m.mu.topics[topic]; ok {
		m.mu.Unlock()
		return tc
	}
	tc := body.NewTopicConfig(topic)
	tc.ReadQueueNums, tc.WriteQueueNums = queueNums, queueNums
	tc.Perm = perm
	tc.TopicSysFlag = sysFlag
	m.createLocked(tc, "send back")
	return tc
}

// CreateTopicIfAbsent returns the existing config of tc's topic, or creates tc. created reports
// which happened.
func (m *Manager) CreateTopicIfAbsent(tc body.TopicConfig) (got body.TopicConfig, created bool) {
	m.mu.Lock()
	if old, ok := m.mu.topics[tc.TopicName]; ok {
		m.mu.Unlock()
		return old, false
	}
	if tc.TopicFilterType == "" {
		tc.TopicFilterType = body.SingleTag
	}
	m.createLocked(tc, "if absent")
	return tc, true
}

// createLocked adds tc, unlocks, persists and notifies. A name that is not a valid topic is not
// created. A persist failure is logged: the topic exists in memory and the next change retries
// the write, as in Java.
// REQUIRES: m.mu held for writing; it is released on return.
func (m *Manager) createLocked(tc body.TopicConfig, why string) {
	if err := ValidateTopic(tc.TopicName); err != nil {
		m.mu.Unlock()
		m.lg.Warn("topic not created: not a topic name", zap.String("topic", names.Quote(tc.TopicName)), zap.String("by", why))
		return
	}
	m.mu.topics[tc.TopicName] = tc
	seq := m.changedLocked()
	m.mu.Unlock()
	m.lg.Info("topic created", zap.String("topic", tc.TopicName), zap.String("by", why),
		zap.Int("queueNums", tc.WriteQueueNums), zap.Int("perm", tc.Perm))
	if err := m.persist(seq); err != nil {
		m.lg.Error("persist topics", zap.Error(err))
	}
	m.notify(Change{Topic: tc})
}

// CreateAllIfAbsent creates the topics of tcs that do not exist, with one write of topics.json
// for all of them (the retry topics of a heartbeat's new groups), and returns the write's error.
// Names that are not valid topics are left out.
func (m *Manager) CreateAllIfAbsent(tcs []body.TopicConfig, why string) error {
	var created []body.TopicConfig
	m.mu.Lock()
	for _, tc := range tcs {
		if _, ok := m.mu.topics[tc.TopicName]; ok || ValidateTopic(tc.TopicName) != nil {
			continue
		}
		if tc.TopicFilterType == "" {
			tc.TopicFilterType = body.SingleTag
		}
		m.mu.topics[tc.TopicName] = tc
		created = append(created, tc)
	}
	if len(created) == 0 {
		m.mu.Unlock()
		return nil
	}
	seq := m.changedLocked()
	m.mu.Unlock()
	m.lg.Info("topics created", zap.Int("count", len(created)), zap.String("by", why),
		zap.String("first", created[0].TopicName))
	err := m.persist(seq)
	for _, tc := range created {
		m.notify(Change{Topic: tc})
	}
	return err
}

// UpdateOrderTopicConfig marks as ordered the existing topics named in orderTopics (the
// ORDER_TOPIC_CONFIG KV table from the name server). It never clears the flag, as in Java.
func (m *Manager) UpdateOrderTopicConfig(orderTopics map[string]string) error {
	m.mu.Lock()
	changed := false
	for name := range orderTopics {
		if tc, ok := m.mu.topics[name]; ok && !tc.Order {
			tc.Order = true
			m.mu.topics[name] = tc
			changed = true
		}
	}
	if !changed {
		m.mu.Unlock()
		return nil
	}
	seq := m.changedLocked()
	m.mu.Unlock()
	return m.persist(seq)
}

// changedLocked bumps the DataVersion and returns the number of this change.
// REQUIRES: m.mu held for writing.
func (m *Manager) changedLocked() uint64 {
	m.mu.version = m.mu.version.Next(m.opts.Now())
	m.mu.seq++
	return m.mu.seq
}

// Persist writes the current table to topics.json.
func (m *Manager) Persist() error {
	m.mu.Lock()
	m.mu.seq++
	seq := m.mu.seq
	m.mu.Unlock()
	return m.persist(seq)
}

// persist returns once change seq is in topics.json.
func (m *Manager) persist(seq uint64) error {
	if err := m.sync.Sync(seq); err != nil {
		return fmt.Errorf("topic: persist: %w", err)
	}
	return nil
}

// snapshot encodes the table for topics.json, with the number of its latest change.
func (m *Manager) snapshot() ([]byte, uint64, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	data, err := body.MarshalIndent(m.wrapperLocked())
	if err != nil {
		return nil, 0, fmt.Errorf("topic: encode: %w", err)
	}
	return data, m.mu.seq, nil
}

// Writes is the number of writes of topics.json so far.
func (m *Manager) Writes() uint64 { return m.sync.Writes() }

func (m *Manager) notify(c Change) {
	if m.opts.OnChange != nil {
		m.opts.OnChange(c)
	}
}
