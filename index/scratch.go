package index

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
)

// An index without a snapshot directory is rebuilt from SQL at every
// start; Bleve's scorch can hold it in memory, but then it never merges
// its segments (its merger runs only on disk), and every applied batch
// stays a segment that each search visits. A follower applying one store
// call of 100 entries at a time leaves about a thousand segments at
// 100,000 entries: searches of two words over the Go doc comments took a
// median 28 ms over 50,000 entries applied in batches of 100 in memory,
// 0.13 ms on disk. Options.Scratch therefore keeps such an index in a
// private temporary directory, where scorch merges as it does for a
// snapshot, and removes it at Close. Its batches are not made durable
// (unsafe_batch): nothing reopens the directory, so a batch is readable
// once it is introduced in memory, and persisting and merging run in the
// background, as the snapshot's do.

// A process killed before it closed its index (the OOM killer, a
// SIGKILL) leaves its scratch directory behind: the whole index, hundreds
// of megabytes at a million entries, and one more at every such end of a
// process that shares a database with another (the second process keeps
// its index in scratch: the snapshot is the first's). So each scratch
// directory holds its owner's lock (scratchLock, flock, released by the
// kernel when the process ends), and an index opening a new one first
// removes those whose lock no process holds (sweepScratch).

// scratchPrefix names the scratch directories in the temporary directory;
// scratchLock is the owner's lock file in each.
const (
	scratchPrefix = "contextd-fts-"
	scratchLock   = "owner.lock"
)

// newScratch sweeps the abandoned scratch directories of tmp, then creates
// this index's, locked; "" and the reason when it cannot (a read-only
// container).
func newScratch(tmp string) (dir string, lock *os.File, err error) {
	sweepScratch(tmp)
	if dir, err = os.MkdirTemp(tmp, scratchPrefix); err != nil {
		return "", nil, err
	}
	if lock, err = lockScratch(dir); err != nil {
		_ = removeAll(dir)
		return "", nil, err
	}
	return dir, lock, nil
}

// sweepScratch removes the scratch directories in tmp whose process ended
// without removing them. It is best effort: what it cannot read or remove
// stays, as before.
func sweepScratch(tmp string) {
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), scratchPrefix) {
			continue
		}
		dir := filepath.Join(tmp, e.Name())
		if release, ok := claimScratch(dir); ok {
			_ = removeAll(dir)
			release()
		}
	}
}

// newUnsaved creates the empty Bleve index of an index that keeps no
// snapshot: in the scratch directory when there is one, else in memory.
func (ix *Index) newUnsaved(m mapping.IndexMapping) (bleve.Index, error) {
	if ix.scratch == "" {
		bi, err := bleve.NewUsing("", m, scorch.Name, scorch.Name, nil)
		if err != nil {
			return nil, fmt.Errorf("index: create in memory: %w", err)
		}
		return bi, nil
	}
	data := filepath.Join(ix.scratch, "fts.bleve")
	if err := removeAll(data); err != nil { // Reset's previous data
		return nil, fmt.Errorf("index: clear scratch directory: %w", err)
	}
	bi, err := bleve.NewUsing(data, m, scorch.Name, scorch.Name, map[string]any{"unsafe_batch": true})
	if err != nil {
		return nil, fmt.Errorf("index: create in scratch directory: %w", err)
	}
	return bi, nil
}

// removeScratch removes the scratch directory, if any.
func (ix *Index) removeScratch() error {
	if ix.scratch == "" {
		return nil
	}
	err := removeAll(ix.scratch)
	if ix.scratchLock != nil {
		_ = ix.scratchLock.Close() // after the removal: no sweep races it
	}
	ix.scratch, ix.scratchLock = "", nil
	if err != nil {
		return fmt.Errorf("index: remove scratch directory: %w", err)
	}
	return nil
}
