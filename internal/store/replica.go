package store

import (
	"errors"
	"fmt"

	"github.com/rocketgo/rocketgo/internal/store/commitlog"
	"github.com/rocketgo/rocketgo/internal/store/mmapfile"
)

// Role is the store's part in classic master/slave replication (Java's
// brokerRole). docs/ha.md describes what each role promises.
type Role int

// Roles.
const (
	// RoleAsyncMaster (ASYNC_MASTER): puts never wait for a slave.
	RoleAsyncMaster Role = iota
	// RoleSyncMaster (SYNC_MASTER): a put with WAIT≠false also waits until a
	// slave acknowledged its end offset (see Replicator).
	RoleSyncMaster
	// RoleSlave (SLAVE): puts are refused with ServiceNotAvailable; the
	// CommitLog grows only by AppendCommitLog, and pulls never correct a
	// consumer's offset (Java's offsetCheckInSlave=false).
	RoleSlave
)

var roleNames = [...]string{"ASYNC_MASTER", "SYNC_MASTER", "SLAVE"}

// String is the brokerRole name.
func (r Role) String() string {
	if r >= 0 && int(r) < len(roleNames) {
		return roleNames[r]
	}
	return "Role(?)"
}

// Replicator is a master's replication service (internal/ha's Service), set
// with SetReplicator.
type Replicator interface {
	// NotifyReadable is called whenever the CommitLog's readable end may have
	// advanced (after a put under ASYNC_FLUSH, after a sync under
	// SYNC_FLUSH). It must return at once.
	NotifyReadable()
	// WaitReplicated blocks until a slave acknowledged the CommitLog up to end
	// and returns PutOK, or SlaveNotAvailable at once when no connected slave
	// is close enough to wait for, or FlushSlaveTimeout when none acknowledged
	// in time.
	WaitReplicated(end int64) PutStatus
}

// replicatorBox lets an interface live in an atomic.Pointer.
type replicatorBox struct{ r Replicator }

// errSlave is the remark of a put refused by a slave.
var errSlave = errors.New("store: this broker is a SLAVE: messages are put to its master and replicated here")

// ErrNotSlave reports AppendCommitLog on a store that is not a slave.
var ErrNotSlave = errors.New("store: replicated data is only appended to a SLAVE's store")

// Role is the store's replication role.
func (s *Store) Role() Role { return s.opts.Role }

// SetReplicator installs (or, with nil, removes) the service a SYNC_MASTER
// waits on and tells of new data. Without one a SYNC_MASTER answers every
// waiting put SlaveNotAvailable.
func (s *Store) SetReplicator(r Replicator) { s.replicator.Store(&replicatorBox{r: r}) }

func (s *Store) loadReplicator() Replicator {
	if b := s.replicator.Load(); b != nil {
		return b.r
	}
	return nil
}

// notifyReadable is the CommitLog's OnReadable hook.
func (s *Store) notifyReadable() {
	if r := s.loadReplicator(); r != nil {
		r.NotifyReadable()
	}
}

// awaitReplica makes a SYNC_MASTER put with WAIT≠false wait for a slave (Java
// CommitLog.submitReplicaRequest). A replication failure replaces the flush
// status, FlushDiskTimeout included (Java handleDiskFlushAndHA).
func (s *Store) awaitReplica(r *PutResult, props string) {
	if s.opts.Role != RoleSyncMaster || !r.Status.Stored() || !commitlog.WaitStoreMsgOK(props) {
		return
	}
	st := SlaveNotAvailable
	if rep := s.loadReplicator(); rep != nil {
		st = rep.WaitReplicated(r.WroteOffset + int64(r.WroteBytes))
	}
	switch st {
	case PutOK:
	case SlaveNotAvailable:
		r.Status, r.Err = st, errors.New("store: SYNC_MASTER: no slave is connected and close enough to wait for")
		r.Remark = r.Err.Error()
	default:
		r.Status, r.Err = st, fmt.Errorf("store: SYNC_MASTER: no slave acknowledged the message in time (%s)", st)
		r.Remark = r.Err.Error()
	}
}

// slaveOffsetCorrection keeps a pull's nextBeginOffset at the requested offset
// on a slave, for every status Java passes through nextOffsetCorrection: a
// slave never moves a consumer (offsetCheckInSlave=false).
func (s *Store) slaveOffsetCorrection(r *GetResult, offset int64) {
	if s.opts.Role != RoleSlave {
		return
	}
	switch r.Status {
	case NoMatchedLogicQueue, NoMessageInQueue, OffsetTooSmall, OffsetOverflowOne, OffsetOverflowBadly, OffsetFoundNull:
		r.NextBeginOffset = offset
	}
}

// CommitLogSegmentSize is the size of every CommitLog segment
// (mappedFileSizeCommitLog).
func (s *Store) CommitLogSegmentSize() int64 { return s.opts.CommitLogSegmentSize }

// CommitLogData is raw CommitLog bytes: a slice of a mapped segment, valid
// until Release.
type CommitLogData struct {
	Offset int64  // CommitLog offset of Bytes[0]
	Bytes  []byte // never spans two segments
	f      *mmapfile.MappedFile
}

// Release drops the reference on the segment; Bytes must not be used after.
// It is safe to call more than once.
func (d *CommitLogData) Release() {
	if d.f != nil {
		d.f.Release()
		d.f = nil
	}
	d.Bytes = nil
}

// ReadCommitLog returns up to max bytes of the CommitLog from off on, to the
// end of the readable data in the segment holding off (the flushed end under
// SYNC_FLUSH, the written end under ASYNC_FLUSH) and without copying. ok is
// false when nothing is readable at off: off is at or past the readable end,
// below the log's start, or the store is closed. Release the data when done.
func (s *Store) ReadCommitLog(off int64, max int) (d CommitLogData, ok bool) {
	if s.closed.Load() {
		return CommitLogData{}, false
	}
	b, f := s.cl.ReadRaw(off, max)
	if f == nil {
		return CommitLogData{}, false
	}
	return CommitLogData{Offset: off, Bytes: b, f: f}, true
}

// AppendCommitLog appends data, CommitLog bytes replicated from a master, at
// off: the end of the CommitLog, or the start of a segment when it is empty
// (commitlog.ErrNotAtEnd otherwise). Only a slave's store accepts it. The
// dispatcher then builds the ConsumeQueues and the index from the new records
// as it does for puts, and the flush follows the store's flush type. It does
// not wait for durability.
func (s *Store) AppendCommitLog(off int64, data []byte) error {
	switch {
	case s.closed.Load():
		return ErrClosed
	case s.opts.Role != RoleSlave:
		return ErrNotSlave
	}
	if err := s.cl.AppendRaw(off, data); err != nil {
		if errors.Is(err, commitlog.ErrClosed) {
			return ErrClosed
		}
		return fmt.Errorf("store: append replicated data: %w", err)
	}
	return nil
}
