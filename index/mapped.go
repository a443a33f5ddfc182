package index

import (
	"github.com/contextd/contextd/internal/memrelease"
)

// ReleaseMapped takes the pages of the index's segment files out of the
// process's resident set and returns how many bytes of mappings that
// covered. Scorch maps every persisted segment whole and searches read
// it through the map, so the pages a burst of searches touched stayed
// resident for as long as the segment lived: at one million entries
// (contextd bench, 2026-12-05) 428 MiB of the 1,479 MiB RSS after the
// searches were segment pages, 161 MiB after a restart and the same
// searches. The kernel's page cache keeps the files, so the next search
// faults what it touches back in without reading the disk. The server
// calls it when it turns quiet (internal/memrelease), as it releases
// SQLite's maps.
//
// The segments are held by a reader for the duration, so none of them is
// unmapped (and its addresses reused) while their pages are dropped. The
// search caches (ordinal arrays, block bounds) of segments no longer in
// the reader are dropped too: after a load, those of the segments merged
// away stayed until the caches held twice the live segments.
func (ix *Index) ReleaseMapped() (int64, error) {
	ix.life.RLock()
	defer ix.life.RUnlock()
	snap, done, err := ix.heldSnapshot()
	if err != nil || snap == nil {
		return 0, err // an index that is not scorch's maps nothing
	}
	defer done()
	// The caches of segments merged away go too.
	ix.ords.prune(snap.Segments())
	ix.blocks.prune(snap.Segments())
	paths := map[string]bool{}
	for _, s := range snap.Segments() {
		if p, ok := s.Segment().(interface{ Path() string }); ok && p.Path() != "" {
			paths[p.Path()] = true
		}
	}
	return memrelease.DropMapped(paths)
}
