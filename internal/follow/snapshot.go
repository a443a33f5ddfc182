package follow

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// WriteFile writes the snapshot file path atomically: write fills a
// temporary file in the same directory, which is synced, given perm and
// renamed over path, and the directory is synced so the rename itself
// survives a crash. A reader (or a process restarted after kill -9) sees
// the old file or the new one, never a torn one. The directory must
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
	return syncDir(dir)
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
