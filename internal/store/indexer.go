package store

import (
	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/store/commitlog"
	"github.com/rocketgo/rocketgo/internal/store/index"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// Indexer is the key index the dispatcher feeds: internal/store/index through
// indexService below, or any other implementation.
type Indexer interface {
	// Index indexes one dispatched record (rollbacks included: the indexer skips
	// what it does not index). Re-dispatch after a crash repeats records, so it
	// must skip records it already holds. info.Properties is only valid during
	// the call.
	Index(info DispatchInfo) error
	// Query returns the CommitLog offsets of records indexed under topic#key
	// stored in [begin, end] (ms), newest first, at most maxNum.
	Query(topic, key string, maxNum int, begin, end int64) IndexQueryResult
	// Flush makes the index durable.
	Flush() error
	// FlushedTimestamp is the store time up to which the index is durable
	// (the checkpoint's indexMsgTimestamp).
	FlushedTimestamp() int64
	// ResumeOffset tells whether the index lost entries when it was opened
	// after an unclean shutdown (files written after the checkpoint are
	// dropped), and the CommitLog offset from which records must then be
	// indexed again: re-dispatch starts no later than that.
	ResumeOffset() (offset int64, lost bool)
	// Truncate drops entries for records at or past the CommitLog's recovered end.
	Truncate(commitLogEnd int64) error
	// DeleteExpired drops index files that only cover records below the
	// CommitLog's min offset.
	DeleteExpired(commitLogMin int64) (int, error)
	Close() error
}

// IndexQueryResult is an Indexer's answer.
type IndexQueryResult struct {
	PhyOffsets               []int64
	IndexLastUpdateTimestamp int64
	IndexLastUpdatePhyOffset int64
}

// indexService adapts *index.Service to Indexer.
type indexService struct{ s *index.Service }

// openIndex opens the IndexFile service. After an unclean shutdown it repairs
// the files written after the checkpoint, reading record times from cl.
func openIndex(o *Options, clean bool, cp Checkpoint, cl *commitlog.CommitLog, lg *zap.Logger) (Indexer, error) {
	s, err := index.Open(o.indexDir(), index.Options{
		HashSlotNum:         o.MaxHashSlotNum,
		IndexNum:            o.MaxIndexNum,
		MaxQueryNum:         o.MaxMsgsNumBatch,
		CleanShutdown:       clean,
		CheckpointTimestamp: cp.IndexMsgTimestamp,
		RecordTime: func(phy int64) int64 {
			m, err := cl.Lookup(phy)
			if err != nil {
				return -1
			}
			return m.StoreTimestamp
		},
		Now: o.Now,
		FS:  o.FS,
	}, lg)
	if err != nil {
		return nil, err
	}
	return indexService{s}, nil
}

func (x indexService) Index(info DispatchInfo) error {
	keys, _ := message.LookupProperty(info.Properties, message.PropertyKeys)
	uniq, _ := message.LookupProperty(info.Properties, message.PropertyUniqClientMessageID)
	if len(keys) == 0 && len(uniq) == 0 {
		return nil
	}
	return x.s.BuildIndex(index.Request{
		Topic:          info.Topic,
		Keys:           string(keys),
		UniqKey:        string(uniq),
		PhyOffset:      info.CommitLogOffset,
		StoreTimestamp: info.StoreTimestamp,
		SysFlag:        info.SysFlag,
	})
}

func (x indexService) Query(topic, key string, maxNum int, begin, end int64) IndexQueryResult {
	r := x.s.Query(topic, key, maxNum, begin, end)
	return IndexQueryResult{
		PhyOffsets:               r.PhyOffsets,
		IndexLastUpdateTimestamp: r.IndexLastUpdateTimestamp,
		IndexLastUpdatePhyOffset: r.IndexLastUpdatePhyoffset,
	}
}

func (x indexService) Flush() error                         { return x.s.Flush() }
func (x indexService) FlushedTimestamp() int64              { return x.s.LastFlushedTimestamp() }
func (x indexService) ResumeOffset() (int64, bool)          { return x.s.EndPhyOffset(), x.s.LostOnLoad() }
func (x indexService) Truncate(end int64) error             { return x.s.Truncate(end) }
func (x indexService) DeleteExpired(min int64) (int, error) { return x.s.DeleteExpired(min) }
func (x indexService) Close() error                         { return x.s.Close() }
