package configfile

import (
	"errors"
	"sync"

	"go.uber.org/zap"
)

// Persister writes successive snapshots of one file. Managers take a snapshot and a sequence
// number under their own lock, release it, then call Write, so readers are never blocked by the
// fsync; Persister drops a snapshot older than one already written, so concurrent changes never
// leave an older table on disk.
type Persister struct {
	path    string
	mu      sync.Mutex
	written uint64
}

// NewPersister returns a Persister for path.
func NewPersister(path string) *Persister { return &Persister{path: path} }

// Path returns the file the Persister writes.
func (p *Persister) Path() string { return p.path }

// Write writes data (snapshot number seq) unless a later snapshot has been written already.
func (p *Persister) Write(data []byte, seq uint64) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if seq <= p.written {
		return nil
	}
	if err := Write(p.path, data); err != nil {
		return err
	}
	p.written = seq
	return nil
}

// Load reads the file, or its backup when the file is missing or unreadable, through decode.
// found is false when neither exists; a load from the backup is logged as a warning.
func (p *Persister) Load(decode func([]byte) error, lg *zap.Logger) (found bool, err error) {
	_, fromBak, err := Read(p.path, decode)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if fromBak && lg != nil {
		lg.Warn("config file unreadable, loaded its backup", zap.String("path", p.path))
	}
	return true, nil
}
