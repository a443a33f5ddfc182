package ingest

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// DefaultDebounce is how long Watch waits after the last change before it
// syncs: an editor's save (write, rename, chmod) or a `git checkout` of
// hundreds of files arrives as a burst of events, and one sync after the
// burst does the work of all of them.
const DefaultDebounce = 500 * time.Millisecond

// Watch calls sync whenever files under root change, once per burst of
// changes (debounce, default DefaultDebounce), until ctx ends. New
// directories are watched as they appear. An error of sync is reported
// through onErr and watching goes on: the next change retries.
func Watch(ctx context.Context, root string, debounce time.Duration, sync func(context.Context) error, onErr func(error)) error {
	if debounce <= 0 {
		debounce = DefaultDebounce
	}
	root, err := filepath.EvalSymlinks(root) // as Walk does
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	defer w.Close()
	addTree := func(dir string) error {
		return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // unreadable: the next sync reports it
			}
			if d.IsDir() {
				switch d.Name() {
				case ".git", ".hg", ".svn":
					return filepath.SkipDir
				}
				if err := w.Add(path); err != nil {
					return fmt.Errorf("watch %s: %w", path, err)
				}
			}
			return nil
		})
	}
	if err := addTree(root); err != nil {
		return err
	}
	timer := time.NewTimer(debounce)
	timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			if ev.Has(fsnotify.Create) {
				if fi, err := os.Stat(ev.Name); err == nil && fi.IsDir() {
					_ = addTree(ev.Name)
				}
			}
			timer.Reset(debounce)
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			onErr(fmt.Errorf("watch: %w", err))
		case <-timer.C:
			if err := sync(ctx); err != nil {
				onErr(err)
			}
		}
	}
}
