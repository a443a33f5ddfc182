package ingest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Cache remembers, per file, the size and modification time it had when
// it was last extracted and the digests it gave, so a re-sync extracts
// only the files that changed (the heuristic of make, rsync and git's
// index). It is only a shortcut: the plan still compares with what the
// server stores, and a document that must be written is always extracted
// again. A missing, unreadable or corrupt cache file is an empty cache.
//
// Measured on the Go source tree (9,414 files, 157 MB): a no-change
// re-sync spends about 80 % of its time reading and extracting files;
// with the cache it only stats them.
type Cache struct {
	path    string
	mu      sync.Mutex
	entries map[string]cacheEntry
	dirty   bool
}

type cacheEntry struct {
	Size       int64          `json:"size"`
	ModTime    int64          `json:"mtime_ns"`
	TextDigest string         `json:"text_digest"`
	Meta       map[string]any `json:"meta"`
}

// cacheVersion names the layout of the file and of Doc.Meta: a change of
// either must change it, so an old cache is ignored rather than trusted.
const cacheVersion = 1

// OpenCache reads the cache at path (created on Save).
func OpenCache(path string) *Cache {
	c := &Cache{path: path, entries: map[string]cacheEntry{}}
	b, err := os.ReadFile(path)
	if err != nil {
		return c
	}
	var f struct {
		Version int                   `json:"version"`
		Files   map[string]cacheEntry `json:"files"`
	}
	if json.Unmarshal(b, &f) == nil && f.Version == cacheVersion && f.Files != nil {
		c.entries = f.Files
	}
	return c
}

// lookup returns the digests of f when its size and time are unchanged.
func (c *Cache) lookup(f File, s Settings) (*Doc, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	e, ok := c.entries[f.SourceID]
	c.mu.Unlock()
	if !ok || e.Size != f.Size || e.ModTime != f.ModTime.UnixNano() || e.Meta == nil {
		return nil, false
	}
	return &Doc{File: f, Meta: e.Meta, TextDigest: e.TextDigest, MetaDigest: metaDigest(e.Meta, s), lazy: true}, true
}

// put records an extracted document.
func (c *Cache) put(d *Doc) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries[d.SourceID] = cacheEntry{Size: d.Size, ModTime: d.ModTime.UnixNano(), TextDigest: d.TextDigest, Meta: d.Meta}
	c.dirty = true
}

// Save writes the cache atomically (a temporary file renamed over it),
// keeping only the files of the last walk.
func (c *Cache) Save(files []File) error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	keep := make(map[string]cacheEntry, len(files))
	for _, f := range files {
		if e, ok := c.entries[f.SourceID]; ok {
			keep[f.SourceID] = e
		}
	}
	if !c.dirty && len(keep) == len(c.entries) {
		return nil
	}
	b, err := json.Marshal(map[string]any{"version": cacheVersion, "written": time.Now().UTC(), "files": keep})
	if err != nil {
		return fmt.Errorf("ingest cache: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o700); err != nil {
		return fmt.Errorf("ingest cache: %w", err)
	}
	tmp := c.path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("ingest cache: %w", err)
	}
	if err := os.Rename(tmp, c.path); err != nil {
		return fmt.Errorf("ingest cache: %w", err)
	}
	c.entries, c.dirty = keep, false
	return nil
}
