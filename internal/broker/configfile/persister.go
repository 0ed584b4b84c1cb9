package configfile

import "sync"

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
