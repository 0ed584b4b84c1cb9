// Package query finds stored messages for admin tools and consoles: by key or unique key within
// a time range (the index), by CommitLog offset, by offset message id.
package query

import (
	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// Store reads the index and the CommitLog.
type Store interface {
	QueryMessage(topic, key string, maxNum int, begin, end int64) *store.QueryResult
	LookMessageByOffset(phyOffset int64) *message.MessageExt
}

// DefaultMaxNum is defaultQueryMaxNum's default.
const DefaultMaxNum = 32

// Options are the broker settings a query depends on.
type Options struct {
	// DefaultQueryMaxNum caps a query by unique key (defaultQueryMaxNum); 0 is DefaultMaxNum.
	DefaultQueryMaxNum int
}

// Service answers queries.
type Service struct {
	opts  Options
	store Store
}

// New returns a Service.
func New(opts Options, st Store) *Service {
	if opts.DefaultQueryMaxNum <= 0 {
		opts.DefaultQueryMaxNum = DefaultMaxNum
	}
	return &Service{opts: opts, store: st}
}

// KeyQuery looks messages up by key: a KEYS entry, or with Unique a UNIQ_KEY.
type KeyQuery struct {
	Topic  string
	Key    string
	MaxNum int32
	Begin  int64
	End    int64
	Unique bool
	// MayRead, if set, is asked about the topic of every record found (ACL): a record it refuses
	// fails the query with its error.
	MayRead func(topic string) error
}

// ByKey returns the records matching q, served from the mapped CommitLog: Release the result
// once they are written. No match is QueryNotFound.
func (s *Service) ByKey(q KeyQuery) (*store.QueryResult, error) {
	maxNum := int(q.MaxNum)
	if q.Unique {
		maxNum = s.opts.DefaultQueryMaxNum
	}
	r := s.store.QueryMessage(q.Topic, q.Key, maxNum, q.Begin, q.End)
	if len(r.Records) == 0 {
		r.Release()
		return nil, outcome.Errorf(outcome.QueryNotFound, "can not find message, maybe time range not correct")
	}
	if err := mayReadAll(r.Records, q.MayRead); err != nil {
		r.Release()
		return nil, err
	}
	return r, nil
}

// mayReadAll asks mayRead (nil: no check) about the topic of every record.
func mayReadAll(records [][]byte, mayRead func(string) error) error {
	if mayRead == nil {
		return nil
	}
	for _, rec := range records {
		v, err := message.Parse(rec)
		if err != nil {
			return outcome.Errorf(outcome.SystemError, "a record found is unreadable: %v", err)
		}
		if err := mayRead(string(v.Topic())); err != nil {
			return err
		}
	}
	return nil
}

// Record returns the encoded record at a CommitLog offset. mayRead, if set, is asked about the
// record's topic before anything of it is returned (ACL).
func (s *Service) Record(phyOffset int64, mayRead func(topic string) error) ([]byte, error) {
	m := s.store.LookMessageByOffset(phyOffset)
	if m == nil {
		return nil, outcome.Errorf(outcome.SystemError, "can not find message by the offset, %d", phyOffset)
	}
	if mayRead != nil {
		if err := mayRead(m.Topic); err != nil {
			return nil, err
		}
	}
	rec := make([]byte, m.EncodedSize())
	if _, err := message.Encode(rec, &m.Message); err != nil {
		return nil, err
	}
	return rec, nil
}

// RecordByID returns the encoded record an offset message id names; mayRead as for Record.
func (s *Service) RecordByID(msgID string, mayRead func(topic string) error) ([]byte, error) {
	_, phyOffset, err := message.ParseOffsetMsgID(msgID)
	if err != nil {
		return nil, outcome.Errorf(outcome.SystemError, "bad msgId %q: %v", msgID, err)
	}
	return s.Record(phyOffset, mayRead)
}
