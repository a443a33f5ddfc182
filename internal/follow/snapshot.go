package follow

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// WriteFile writes the snapshot file path atomically: write fills a
// temporary file in the same directory, which is synced, given perm and
// renamed over path, and the directory is synced so the rename itself
// survives a crash. A reader (or a process restarted after kill -9) sees
// the old file or the new one, never a torn one. After a rename the
// temporary files of writers killed earlier are removed (removeStale). The directory must
// exist; the returned errors carry no context of their own, so callers
// wrap them.
func WriteFile(path string, perm fs.FileMode, write func(w io.Writer) error) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename: nothing left
	err = write(tmp)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	removeStale(path, time.Now())
	return syncDir(dir)
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
