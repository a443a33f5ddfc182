package index

import (
	"fmt"

	"github.com/blevesearch/bleve/v2/index/scorch"

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
	if ix.bi == nil {
		return fmt.Errorf("index: closed: %w", cerrors.ErrUnavailable)
	}
	adv, err := ix.bi.Advanced()
	if err != nil {
		return fmt.Errorf("index: %w", err)
	}
	r, err := adv.Reader()
	if err != nil {
		return fmt.Errorf("index: %w", err)
	}
	defer r.Close()
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		return nil
	}
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
