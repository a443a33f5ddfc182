//go:build unix

package index

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
)

// lockScratch creates the scratch directory dir's owner lock, held
// (flock) until the returned file is closed or the process ends. The
// file is created under another name, locked, then renamed: a lock file
// that exists is held for as long as its process lives, so a sweep never
// finds a live process's lock free.
func lockScratch(dir string) (*os.File, error) {
	tmp := filepath.Join(dir, scratchLock+".new")
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		return nil, err
	}
	if err := os.Rename(tmp, filepath.Join(dir, scratchLock)); err != nil {
		_ = f.Close()
		return nil, err
	}
	return f, nil
}

// claimScratch takes the owner lock of the scratch directory dir when its
// process has ended (killed before it closed its index); release lets it
// go once the directory is removed. A directory an older version made has
// no owner lock: its Bleve index's bolt file, which bbolt holds locked
// while the index is open, stands in for it (this version creates the
// owner lock before the index, so a directory without one and with a
// bolt file is an older version's).
func claimScratch(dir string) (release func(), ok bool) {
	f, err := os.OpenFile(filepath.Join(dir, scratchLock), os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		f, err = os.OpenFile(filepath.Join(dir, "fts.bleve", "store", "root.bolt"), os.O_RDWR, 0)
	}
	if err != nil {
		return nil, false // not ours, or its process is still creating it
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		return nil, false // held: its process lives
	}
	return func() { _ = f.Close() }, true
}
