package configfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// BakSuffix is appended to a config file's name for its previous version.
const BakSuffix = ".bak"

// ErrNotFound is returned by Read when neither the file nor its backup exists.
var ErrNotFound = errors.New("configfile: not found")

// Write atomically replaces path with data, keeping the previous content in path.bak.
func Write(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("configfile: mkdir %s: %w", dir, err)
	}
	old, err := os.ReadFile(path)
	switch {
	case err == nil && len(old) > 0:
		if err := writeAtomic(path+BakSuffix, old); err != nil {
			return err
		}
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("configfile: read %s: %w", path, err)
	}
	return writeAtomic(path, data)
}

// writeAtomic writes data to a temp file next to path, syncs it, renames it over path and syncs
// the directory.
func writeAtomic(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("configfile: create temp for %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("configfile: write %s: %w", tmp.Name(), err)
	}
	if err = tmp.Sync(); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("configfile: fsync %s: %w", tmp.Name(), err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("configfile: close %s: %w", tmp.Name(), err)
	}
	if err = os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("configfile: chmod %s: %w", tmp.Name(), err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("configfile: rename %s: %w", path, err)
	}
	return syncDir(dir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("configfile: open dir %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("configfile: fsync dir %s: %w", dir, err)
	}
	return nil
}

// Read returns the content of path, or of path.bak when path is missing, empty or refused by
// decode. decode is called with the content of whichever file is tried and should fully decode
// it (so that the caller keeps the result of the successful call); nil accepts anything. Read
// returns ErrNotFound when neither file exists, and an error naming both files when neither
// decodes.
func Read(path string, decode func([]byte) error) (data []byte, fromBak bool, err error) {
	if decode == nil {
		decode = func([]byte) error { return nil }
	}
	main, mainErr := tryRead(path, decode)
	if mainErr == nil {
		return main, false, nil
	}
	bak, bakErr := tryRead(path+BakSuffix, decode)
	if bakErr == nil {
		return bak, true, nil
	}
	if errors.Is(mainErr, fs.ErrNotExist) && errors.Is(bakErr, fs.ErrNotExist) {
		return nil, false, fmt.Errorf("%w: %s", ErrNotFound, path)
	}
	if errors.Is(mainErr, errEmpty) && (errors.Is(bakErr, fs.ErrNotExist) || errors.Is(bakErr, errEmpty)) {
		return nil, false, fmt.Errorf("%w: %s is empty", ErrNotFound, path)
	}
	return nil, false, fmt.Errorf("configfile: load %s: %w; backup: %w", path, mainErr, bakErr)
}

var errEmpty = errors.New("empty file")

func tryRead(path string, decode func([]byte) error) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(data) == 0 {
		return nil, errEmpty
	}
	if err := decode(data); err != nil {
		return nil, fmt.Errorf("decode %s: %w", path, err)
	}
	return data, nil
}
