package store_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/internal/store/storetest"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// Concurrent producers and consumers: every queue offset is taken exactly once
// and every acknowledged message is pulled back intact, in order.
func TestConcurrentPutAndPull(t *testing.T) {
	for _, ft := range []store.FlushType{store.AsyncFlush, store.SyncFlush} {
		t.Run(ft.String(), func(t *testing.T) {
			o := storetest.Options(t.TempDir())
			o.FlushType = ft
			s := storetest.Open(t, o)
			const producers, perProducer, queues = 8, 150, 3
			var wg sync.WaitGroup
			offsets := make([]map[int64]string, queues)
			var mu sync.Mutex
			for q := range offsets {
				offsets[q] = map[int64]string{}
			}
			for p := range producers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range perProducer {
						q := int32((p + i) % queues)
						b := fmt.Sprintf("p%d-%d", p, i)
						r := s.PutMessage(storetest.Msg("C", q, []byte(b), nil))
						if r.Status != store.PutOK {
							t.Errorf("put: %v %s", r.Status, r.Remark)
							return
						}
						mu.Lock()
						if _, dup := offsets[q][r.QueueOffset]; dup {
							t.Errorf("queue offset %d taken twice", r.QueueOffset)
						}
						offsets[q][r.QueueOffset] = b
						mu.Unlock()
					}
				}()
			}
			// A consumer pulls while the producers run.
			done := make(chan struct{})
			pulled := make(chan int)
			go func() {
				n, off := 0, int64(0)
				for {
					select {
					case <-done:
						pulled <- n
						return
					default:
					}
					r := s.GetMessage("g", "C", 0, off, 32, nil)
					if r.Status == store.Found {
						n += r.MessageCount()
						off = r.NextBeginOffset
					}
					r.Release()
				}
			}()
			wg.Wait()
			close(done)
			require.Positive(t, <-pulled+1)
			waitDispatched(t, s)
			for q := range int32(queues) {
				got := pullAll(t, s, "C", q)
				require.Len(t, got, len(offsets[q]))
				for i, m := range got {
					require.Equal(t, offsets[q][int64(i)], string(m.Body))
				}
			}
		})
	}
}

// The Go client decodes what we serve: records, offset message ids, UNIQ_KEY.
func TestRecordsDecodeWithGoClient(t *testing.T) {
	s := storetest.Open(t, storetest.Options(t.TempDir()))
	var ids []string
	for i := range 5 {
		r := mustPut(t, s, storetest.Msg("GoTopic", 1, body(i, 30), map[string]string{
			"TAGS": "t", "UNIQ_KEY": fmt.Sprintf("UNIQ%d", i), "KEYS": "a b",
		}))
		ids = append(ids, r.MsgID())
	}
	waitDispatched(t, s)
	r := s.GetMessage("g", "GoTopic", 1, 0, 32, nil)
	defer r.Release()
	var pullBody []byte
	for _, rec := range r.Records {
		pullBody = append(pullBody, rec...)
	}
	msgs := primitive.DecodeMessage(pullBody)
	require.Len(t, msgs, 5)
	for i, m := range msgs {
		require.Equal(t, "GoTopic", m.Topic)
		require.Equal(t, 1, m.Queue.QueueId)
		require.EqualValues(t, i, m.QueueOffset)
		require.Equal(t, body(i, 30), m.Body)
		require.Equal(t, fmt.Sprintf("UNIQ%d", i), m.MsgId)
		require.Equal(t, ids[i], m.OffsetMsgId)
		require.Equal(t, "t", m.GetTags())
		require.Equal(t, storetest.StoreHost.String(), m.StoreHost)
		require.Equal(t, message.BodyCRC(m.Body), m.BodyCRC)
		id, err := primitive.UnmarshalMsgID([]byte(ids[i]))
		require.NoError(t, err)
		require.Equal(t, m.CommitLogOffset, id.Offset)
	}
}
