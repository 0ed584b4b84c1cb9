package pop

import (
	"github.com/rocketgo/rocketgo/internal/broker/client"
	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// subFilter is a POP's subscription: its tags or SQL92 expression. A nil *subFilter takes every
// message. The retry topic is read through the same filter, as in Java (retried messages keep
// their tags and properties).
type subFilter struct{ sub *client.Subscription }

// filterOf builds the filter of a POP's expression; "" and "*" of type TAG take everything.
func (s *Service) filterOf(topic, expType, exp string) (*subFilter, error) {
	if expType == "" {
		expType = body.ExpressionTag
	}
	if expType != body.ExpressionTag && expType != body.ExpressionSQL92 {
		return nil, outcome.Errorf(outcome.SubscriptionParseFailed, "parse the consumer's subscription failed: expression type %q", expType)
	}
	if expType == body.ExpressionTag && (exp == "" || exp == body.SubAll) {
		return nil, nil
	}
	sub := s.Deps.Subscriptions.BuildSubscription(body.SubscriptionData{Topic: topic, SubString: exp, ExpressionType: expType})
	if sub.FilterErr != nil {
		return nil, outcome.Errorf(outcome.SubscriptionParseFailed, "parse the consumer's subscription failed: %v", sub.FilterErr)
	}
	return &subFilter{sub: sub}, nil
}

// storeFilter is the filter the store reads with.
func (f *subFilter) storeFilter() store.MessageFilter {
	switch {
	case f == nil:
		return nil
	case f.sub.Filter != nil:
		return sqlFilter{f}
	}
	return tagFilter{f}
}

type sqlFilter struct{ f *subFilter }

func (sqlFilter) MatchByConsumeQueue(int64) bool { return true }

func (q sqlFilter) MatchByCommitLog(props []byte) bool { return q.f.sub.Filter.Match(props) }

type tagFilter struct{ f *subFilter }

func (t tagFilter) MatchByConsumeQueue(tagsCode int64) bool {
	_, ok := t.f.sub.Codes[tagsCode]
	return ok || t.f.sub.MatchAll()
}

func (tagFilter) MatchByCommitLog([]byte) bool { return true }
