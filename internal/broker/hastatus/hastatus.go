// Package hastatus answers what a broker's replication looks like (Java's HA runtime info): on a
// master, each connected slave's acknowledged offset, how far it is behind and whether it is in
// sync; on a slave, the master it follows and when bytes last went each way.
package hastatus

import (
	"time"

	"github.com/rocketgo/rocketgo/internal/ha"
)

// Log is the broker's CommitLog.
type Log interface {
	CommitLogMaxOffset() int64
}

// Master is a master's replication service (*ha.Service).
type Master interface {
	Slaves() []ha.SlaveStatus
	InSync(end, ack int64) bool
}

// Client is a slave's replication client (*ha.Client).
type Client interface {
	MasterAddr() string
	Connected() bool
	LastRead() time.Time
	LastWrite() time.Time
	BytesPerSecond() int64
}

// Deps are what the service reads. A slave has a Client; a master has a Master unless it runs no
// HA service, and then it reports no slaves.
type Deps struct {
	Log    Log
	Master Master
	Client Client
}

// Status is the broker's replication status.
type Status struct {
	// Master is the broker's role: true unless it is a slave.
	Master bool
	// CommitLogMaxOffset is the end of the master's CommitLog, 0 on a slave.
	CommitLogMaxOffset int64
	// InSyncSlaves counts the slaves that are in sync.
	InSyncSlaves int
	Slaves       []Slave
	// Replica is a slave's view of its master, zero on a master.
	Replica Replica
}

// Slave is one slave connected to a master.
type Slave struct {
	Addr string
	// AckOffset is what it acknowledged, -1 before its first report; Diff is the master's end
	// minus AckOffset.
	AckOffset, Diff int64
	InSync          bool
	BytesPerSecond  int64
	// TransferFrom is where the next frame to it starts, -1 before the first.
	TransferFrom int64
}

// Replica is a slave's view of its master.
type Replica struct {
	MasterAddr string
	Connected  bool
	// MaxOffset is the end of the slave's own CommitLog.
	MaxOffset      int64
	BytesPerSecond int64
	// LastRead is when bytes last came from the master, LastWrite when the slave last reported
	// to it; zero for never.
	LastRead, LastWrite time.Time
}

// Service answers the replication status.
type Service struct{ deps Deps }

// New returns a Service.
func New(deps Deps) *Service { return &Service{deps: deps} }

// Status is the replication status now.
func (s *Service) Status() Status {
	if c := s.deps.Client; c != nil {
		return Status{Replica: s.replica(c)}
	}
	return s.master()
}

func (s *Service) replica(c Client) Replica {
	return Replica{MasterAddr: c.MasterAddr(), Connected: c.Connected(), MaxOffset: s.deps.Log.CommitLogMaxOffset(),
		BytesPerSecond: c.BytesPerSecond(), LastRead: c.LastRead(), LastWrite: c.LastWrite()}
}

func (s *Service) master() Status {
	st := Status{Master: true, CommitLogMaxOffset: s.deps.Log.CommitLogMaxOffset()}
	if s.deps.Master == nil {
		return st
	}
	for _, c := range s.deps.Master.Slaves() {
		sl := Slave{Addr: c.Addr, AckOffset: c.AckOffset, Diff: st.CommitLogMaxOffset - c.AckOffset,
			InSync: s.deps.Master.InSync(st.CommitLogMaxOffset, c.AckOffset), BytesPerSecond: c.BytesPerSecond,
			TransferFrom: c.SentOffset}
		if sl.InSync {
			st.InSyncSlaves++
		}
		st.Slaves = append(st.Slaves, sl)
	}
	return st
}
