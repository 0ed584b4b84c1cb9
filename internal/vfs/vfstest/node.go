package vfstest

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"syscall"
)

// node is what a power loss keeps of one inode.
type node struct {
	ino  uint64
	dir  bool
	path string // where the FS last saw it (files keep their name across a rename)
	// tracked: the fields below hold the durable state. An untracked node was
	// never changed, renamed or unlinked through the FS, so what is on disk
	// at its path is durable.
	tracked bool
	data    []byte           // a file's content as of its last fsync/msync
	entries map[string]*node // a directory's entries as of its last fsync
}

// lookup returns the node of the inode at p, making an untracked one the first
// time. REQUIRES f.mu.
func (f *FS) lookup(p string) (*node, error) {
	st, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return nil, fmt.Errorf("vfstest: no inode number for %s", p)
	}
	n := f.nodes[sys.Ino]
	if n == nil {
		n = &node{ino: sys.Ino, dir: st.IsDir()}
		f.nodes[sys.Ino] = n
	}
	n.path = p
	return n, nil
}

// pathOf is where n was last seen.
func (f *FS) pathOf(n *node) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return n.path
}

// track records the current state of the node at p as its durable state, if
// it has none yet: the FS is about to change it. REQUIRES f.mu.
func (f *FS) track(n *node, p string) {
	if n.tracked {
		return
	}
	n.tracked = true
	if n.dir {
		n.entries, _ = f.list(p)
		return
	}
	n.data, _ = os.ReadFile(p)
}

// trackParent tracks the directory holding p. REQUIRES f.mu.
func (f *FS) trackParent(p string) {
	dir := filepath.Dir(p)
	if n, err := f.lookup(dir); err == nil {
		f.track(n, dir)
	}
}

// trackTree tracks p and, for a directory, everything under it, and returns
// the nodes; nil when p does not exist. REQUIRES f.mu.
func (f *FS) trackTree(p string) []*node {
	n, err := f.lookup(p)
	if err != nil {
		return nil
	}
	f.track(n, p)
	out := []*node{n}
	if n.dir {
		ents, _ := os.ReadDir(p)
		for _, e := range ents {
			out = append(out, f.trackTree(filepath.Join(p, e.Name()))...)
		}
	}
	return out
}

// list returns the current entries of directory p. REQUIRES f.mu.
func (f *FS) list(p string) (map[string]*node, error) {
	ents, err := os.ReadDir(p)
	if err != nil {
		return nil, err
	}
	m := make(map[string]*node, len(ents))
	for _, e := range ents {
		if n, err := f.lookup(filepath.Join(p, e.Name())); err == nil {
			m[e.Name()] = n
		}
	}
	return m, nil
}

// synced records that [off, off+len(b)) of n is durable with the content b.
// REQUIRES f.mu.
func (n *node) synced(off int64, b []byte) {
	if end := off + int64(len(b)); end > int64(len(n.data)) {
		n.data = append(n.data, make([]byte, end-int64(len(n.data)))...)
	}
	copy(n.data[off:], b)
}

// syncedAll records the current state of every tracked node as durable (a
// syncfs). REQUIRES f.mu.
func (f *FS) syncedAll() error {
	for _, n := range f.nodes {
		if !n.tracked {
			continue
		}
		if n.dir {
			entries, err := f.list(n.path)
			if err != nil {
				return fmt.Errorf("vfstest: syncfs: %w", err)
			}
			n.entries = entries
			continue
		}
		data, err := os.ReadFile(n.path)
		if err != nil {
			return fmt.Errorf("vfstest: syncfs: %w", err)
		}
		n.data = data
	}
	return nil
}

// PowerLoss writes what a power loss would leave of the root into dst (which
// must not exist or be empty) and returns a new FS over it: every file the FS
// changed as of its last fsync or msync, every directory it changed with the
// entries of its last fsync; everything else as it is on disk now. The
// original FS goes on working.
func (f *FS) PowerLoss(dst string) (*FS, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n, err := f.lookup(f.root)
	if err != nil {
		return nil, err
	}
	if err := f.build(n, f.root, dst); err != nil {
		return nil, fmt.Errorf("vfstest: power loss image of %s: %w", f.root, err)
	}
	return NewAt(dst), nil
}

// build writes the durable state of n (at src now) to dst. REQUIRES f.mu.
func (f *FS) build(n *node, src, dst string) error {
	if !n.dir {
		data := n.data
		if !n.tracked {
			var err error
			if data, err = os.ReadFile(src); err != nil {
				return err
			}
		}
		return os.WriteFile(dst, data, 0o644)
	}
	entries := n.entries
	if !n.tracked {
		var err error
		if entries, err = f.list(src); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	names := make([]string, 0, len(entries))
	for name := range entries {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := f.build(entries[name], filepath.Join(src, name), filepath.Join(dst, name)); err != nil {
			return err
		}
	}
	return nil
}
