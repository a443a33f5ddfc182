package snapfmt

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/contextd/contextd/persist"
)

// WriteFile writes the snapshot file path atomically: write fills a
// temporary file in the same directory, which is synced, given perm and
// renamed over path, and the directory is synced so the rename itself
// survives a crash. A reader (or a process restarted after kill -9) sees
// the old file or the new one, never a torn one. After a rename the
// temporary files of writers killed earlier are removed (removeStale).
// The directory must exist; the returned errors carry no context of their own, so callers
// wrap them.
func WriteFile(path string, perm fs.FileMode, write func(w io.Writer) error) error {
	p, err := Create(path)
	if err != nil {
		return err
	}
	defer p.Abort()
	if err := write(p.File); err != nil {
		return err
	}
	return p.Commit(perm)
}

// Pending is a snapshot file being written (Create): its content goes to
// File, and nothing replaces path until Commit. It splits WriteFile in
// two so that a writer holding a lock to capture a consistent state can
// fill several files, release the lock, and only then pay for the fsyncs
// (tens of milliseconds each on a busy disk).
type Pending struct {
	File *os.File
	path string
	done bool
}

// Create starts a snapshot file at path (a temporary file in its
// directory, which must exist).
func Create(path string) (*Pending, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*")
	if err != nil {
		return nil, err
	}
	return &Pending{File: tmp, path: path}, nil
}

// Commit syncs the file, gives it perm, renames it over path and syncs
// the directory. After a failure nothing replaced path.
func (p *Pending) Commit(perm fs.FileMode) error {
	if p.done {
		return fs.ErrClosed
	}
	p.done = true
	defer os.Remove(p.File.Name()) // after a successful rename: nothing left
	err := p.File.Chmod(perm)
	if err == nil {
		err = p.File.Sync()
	}
	if cerr := p.File.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Rename(p.File.Name(), p.path); err != nil {
		return err
	}
	removeStale(p.path, time.Now())
	return syncDir(filepath.Dir(p.path))
}

// Abort drops an uncommitted file (a no-op after Commit).
func (p *Pending) Abort() {
	if p.done {
		return
	}
	p.done = true
	_ = p.File.Close()
	_ = os.Remove(p.File.Name())
}

// staleTemp is the age past which a temporary file of a snapshot is the
// leftover of a writer killed before its rename (kill -9, power loss):
// TestFaultKillDuringSnapshot (cmd/contextd) found such files were never
// removed, one per crash, each up to the size of the snapshot. A live
// writer keeps its file's modification time fresh with every write, and
// the writes take milliseconds to seconds, so a minute without one
// cannot be a writer of this or another process on the same folder.
const staleTemp = time.Minute

// removeStale removes, best effort, the temporary files of path (the
// names os.CreateTemp gives: path, a dot, digits) not modified within
// staleTemp of now.
func removeStale(path string, now time.Time) {
	dir, prefix := filepath.Dir(path), filepath.Base(path)+"."
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || rest == "" || strings.Trim(rest, "0123456789") != "" || !e.Type().IsRegular() {
			continue
		}
		if fi, err := e.Info(); err == nil && now.Sub(fi.ModTime()) > staleTemp {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// syncDir makes a rename in dir durable. Windows cannot open a directory
// for syncing; there the rename is as durable as the file system makes it.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// Mark names a point of one store's change log: a seq and the entry of
// the row at that seq. A snapshot records the Mark of its watermark; at
// start-up Check tells whether the store is still the one the snapshot
// was taken of (a database restored from a backup, or another file moved
// in its place, has no such row or another entry at that seq), which a
// seq alone cannot tell once the other log has grown past it.
type Mark struct {
	Seq   int64
	Entry string
}

// MarkAt reads the Mark of seq (the zero Mark for seq 0).
func MarkAt(ctx context.Context, src persist.ChangeFeed, seq int64) (Mark, error) {
	if seq <= 0 {
		return Mark{}, nil
	}
	chs, err := src.Changes(ctx, seq-1, 1)
	if err != nil {
		return Mark{}, fmt.Errorf("read change log: %w", err)
	}
	if len(chs) == 0 || chs[0].Seq != seq {
		return Mark{}, fmt.Errorf("change log has no row %d", seq)
	}
	return Mark{Seq: seq, Entry: chs[0].EntryID}, nil
}

// Check says why m does not name a row of src's change log ("" when it
// does); an error is a failure to read the log.
func (m Mark) Check(ctx context.Context, src persist.ChangeFeed) (string, error) {
	head, err := src.LastSeq(ctx)
	if err != nil {
		return "", fmt.Errorf("read change log: %w", err)
	}
	if m.Seq > head {
		return fmt.Sprintf("snapshot watermark %d is ahead of the database (%d): stale", m.Seq, head), nil
	}
	if m.Seq <= 0 {
		return "", nil
	}
	chs, err := src.Changes(ctx, m.Seq-1, 1)
	if err != nil {
		return "", fmt.Errorf("read change log: %w", err)
	}
	if len(chs) == 0 || chs[0].Seq != m.Seq || chs[0].EntryID != m.Entry {
		return fmt.Sprintf("change-log row %d is not the snapshot's: another database", m.Seq), nil
	}
	return "", nil
}
