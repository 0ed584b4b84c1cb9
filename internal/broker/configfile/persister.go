package configfile

import (
	"errors"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/vfs"
)

// Persister writes successive snapshots of one config file (vfs.Persister:
// the previous version kept as <file>.bak, stale snapshots dropped) and loads
// it back.
type Persister struct{ *vfs.Persister }

// NewPersister returns a Persister for path on the real file system.
func NewPersister(path string) *Persister {
	return &Persister{vfs.NewPersister(vfs.Default, path)}
}

// Load reads the file, or its backup when the file is missing or unreadable, through decode.
// found is false when neither exists; a load from the backup is logged as a warning.
func (p *Persister) Load(decode func([]byte) error, lg *zap.Logger) (found bool, err error) {
	_, fromBak, err := vfs.ReadWithBackup(p.FS(), p.Path(), decode)
	if errors.Is(err, vfs.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if fromBak && lg != nil {
		lg.Warn("config file unreadable, loaded its backup", zap.String("path", p.Path()))
	}
	return true, nil
}
