package pull

import (
	"github.com/rocketgo/rocketgo/internal/broker/client"
	"github.com/rocketgo/rocketgo/internal/broker/filter"
	"github.com/rocketgo/rocketgo/internal/store"
)

// messageFilter is what the store filters a pull with: a SQL92 subscription's compiled expression
// over each record's properties, else the subscription's tag codes over the ConsumeQueue.
func messageFilter(sub *client.Subscription) store.MessageFilter {
	if sub != nil && sub.Filter != nil {
		return sqlFilter{sub.Filter}
	}
	return tagFilter{sub}
}

// sqlFilter filters a pull by a SQL92 expression over the message properties in the CommitLog.
type sqlFilter struct{ expr *filter.Expr }

func (f sqlFilter) MatchByConsumeQueue(int64) bool { return true }

func (f sqlFilter) MatchByCommitLog(props []byte) bool { return f.expr.Match(props) }

// tagFilter filters a pull by tag codes; a nil subscription or "*" takes everything.
type tagFilter struct{ sub *client.Subscription }

func (f tagFilter) MatchByConsumeQueue(tagsCode int64) bool {
	if f.sub == nil || f.sub.MatchAll() {
		return true
	}
	_, ok := f.sub.Codes[tagsCode]
	return ok
}

func (f tagFilter) MatchByCommitLog([]byte) bool { return true }
