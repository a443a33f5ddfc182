package index

import (
	"fmt"

	"github.com/blevesearch/bleve/v2/index/scorch"
	segment "github.com/blevesearch/scorch_segment_api/v2"

	"github.com/contextd/contextd/cerrors"
)

// WarmSearch builds what the first full-text searches after a start
// would otherwise build on their way: every segment's ordinal array
// (prefilter.go) and the block bounds of the large segments' dense lists
// (maxscore_block.go). At one million entries the first search after a
// start paid about a second for them, the one slow call in the bench's
// hundred (fts_search_context p99 405 ms, median 3.5 ms; 2026-12-05). The
// engine runs it in the background once the catalog is loaded; a search
// meanwhile shares the work (each part is built once). It holds a reader
// and the view (read) per segment, so applies interleave with it.
func (ix *Index) WarmSearch() error {
	ix.life.RLock()
	defer ix.life.RUnlock()
	snap, done, err := ix.heldSnapshot()
	if err != nil || snap == nil {
		return err
	}
	defer done()
	segs := snap.Segments()
	for _, ss := range segs {
		if err := ix.warmSegment(ss, segs); err != nil {
			return err
		}
	}
	return nil
}

func (ix *Index) warmSegment(ss *scorch.SegmentSnapshot, segs []*scorch.SegmentSnapshot) error {
	ix.view.RLock()
	defer ix.view.RUnlock()
	if _, err := ix.segmentOrds(ss, segs); err != nil {
		return err
	}
	if ss.Segment().Count() < warmMinDocs {
		return nil
	}
	dict, err := ss.Segment().Dictionary(fieldText)
	if err != nil {
		return fmt.Errorf("index: %w", err)
	}
	_, err = ix.blocks.warmed(ss, segs, dict)
	return err
}

// buildLater builds the blocks of term in seg outside the search that
// asked for them, one build at a time, holding a reader so that seg stays
// open (a segment merged away meanwhile is skipped); false when a build
// is already running (a later use asks again).
func (ix *Index) buildLater(seg segment.Segment, sb *segBlocks, term string) bool {
	if !ix.building.CompareAndSwap(false, true) {
		return false
	}
	go func() {
		defer func() {
			ix.building.Store(false)
			if ix.built != nil {
				ix.built <- struct{}{}
			}
		}()
		ix.life.RLock()
		defer ix.life.RUnlock()
		snap, done, err := ix.heldSnapshot()
		if err != nil || snap == nil {
			return
		}
		defer done()
		for _, ss := range snap.Segments() {
			if ss.Segment() != seg {
				continue
			}
			if dict, err := seg.Dictionary(fieldText); err == nil {
				_, _, _ = ix.blocks.entry(sb, dict, term, seg.Count(), 1, false)
			}
			return
		}
	}()
	return true
}

// heldSnapshot is a reader's scorch snapshot of the index, held until
// done is called (nil without error for an index that is not scorch's).
// The caller holds ix.life (read), so Close waits for done.
func (ix *Index) heldSnapshot() (snap *scorch.IndexSnapshot, done func(), err error) {
	if ix.bi == nil {
		return nil, nil, fmt.Errorf("index: closed: %w", cerrors.ErrUnavailable)
	}
	adv, err := ix.bi.Advanced()
	if err != nil {
		return nil, nil, fmt.Errorf("index: %w", err)
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, nil, fmt.Errorf("index: %w", err)
	}
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		_ = r.Close()
		return nil, nil, nil
	}
	return snap, func() { _ = r.Close() }, nil
}
