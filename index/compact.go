package index

import (
	"context"
	"math"
	"slices"

	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"

	"github.com/contextd/contextd/internal/memrelease"
)

// Compaction: the small segments a load leaves, merged once things
// settle.
//
// Bleve's merge policy keeps up to ten segments per size tier, so a load
// ends with as many as thirty, and which ones depends on where its last
// merges stopped. Every full-text search pays for each segment: each term
// is looked up, and its lists opened and walked, once per segment. On one
// 1M-entry database (2026-12-06, the hybrid row's hundred questions,
// processes alternated twice), 25 segments (ten of about 100k documents,
// fifteen smaller) answered in a median of 7.1-7.8 ms, full-text leg
// 3.7-4.2 ms; the same entries in 2 segments in 4.2-5.0 ms, leg 2.3-2.6
// (docs/benchmarks.md).
//
// So when the merge watcher finds the index settled (warmmerge.go), it
// merges the tail: the smallest segments, as many as it takes for every
// segment left to hold at least compactRatio times the live documents of
// all the smaller ones together. The segments kept are not read. A
// trickle of small changes merges small tails, like a binary counter:
// each document is copied again about log_compactRatio(n) times over its
// life, and the segments left number at most log_compactRatio of the
// largest over the smallest. What a load leaves is usually one large
// segment and a tail, or tiers of about equal size, which merge whole:
// on the database above, about 20 s of one core for 1M entries.
//
// The merge runs in Bleve's merger (ForceMerge), so it queues behind
// Bleve's own merges and stops when the index closes. Searches read the
// segments it replaces until it is done; the mapped-page guard
// (mapguard.go) hands back the pages it reads.

// compactRatio is how many times the live documents of all the smaller
// segments together a segment must hold to stay out of a compaction.
const compactRatio = 4

// compactBound returns the live size below which segments are merged
// into one, given the segments' live sizes, and how many segments stay
// out of the merge; bound 0 means there is nothing to merge.
func compactBound(sizes []uint64) (bound uint64, kept int) {
	s := slices.Clone(sizes)
	slices.Sort(s)
	last := -1 // the largest segment of the tail
	var below uint64
	for i, n := range s {
		if i > 0 && (n == 0 || n < compactRatio*below) {
			last = i
		}
		below += n
	}
	if last < 1 {
		return 0, len(s)
	}
	return s[last] + 1, len(s) - last - 1
}

// compact merges the index's tail (see above) and reports whether a merge
// was introduced (not when Bleve found nothing to merge: the tail's
// segments not yet persisted, or the index closed). It holds ix.life only
// to find the segments, so a Close meanwhile ends the merge rather than
// waiting for it.
func (ix *Index) compact() bool {
	s, bound, kept := ix.compactPlan()
	if s == nil {
		return false
	}
	opt := mergeplan.MergePlanOptions{
		MaxSegmentsPerTier:   1,
		MaxSegmentSize:       mergeplan.MaxSegmentSizeLimit,
		MaxSegmentFileSize:   math.MaxInt64,
		TierGrowth:           1,
		SegmentsPerMergeTask: math.MaxInt32,
		FloorSegmentSize:     1,
		// The plan merges one roster of consecutive segments (by live
		// size, descending) while more than kept+1 segments remain: the
		// tail's roster, the longest without a kept segment, scores best,
		// and after it kept+1 remain.
		CalcBudget: func(int64, int64, *mergeplan.MergePlanOptions) int { return kept + 1 },
		ScoreSegments: func(segs []mergeplan.Segment, _ *mergeplan.MergePlanOptions) float64 {
			for _, sg := range segs {
				if uint64(max(sg.LiveSize(), 0)) >= bound {
					return math.Inf(1)
				}
			}
			return -float64(len(segs))
		},
	}
	_, before, _ := ix.mergeState()
	// The merge's garbage would let the heap grow to twice what is live
	// (Bleve's merge of 1M documents took 650 MiB above it, 230 MiB with
	// the tight goal; 2026-12-06).
	defer memrelease.Tighten()()
	stop := ix.guardMapped()
	err := s.ForceMerge(context.Background(), &opt)
	stop()
	_, after, open := ix.mergeState()
	return err == nil && open && after != before
}

// compactPlan finds the tail of the index's current segments: the scorch
// index to merge it in, the bound and the count kept (compactBound); nil
// when there is nothing to merge or the index is in memory (no merger).
func (ix *Index) compactPlan() (*scorch.Scorch, uint64, int) {
	ix.life.RLock()
	defer ix.life.RUnlock()
	if ix.bi == nil || (ix.snap == nil && ix.scratch == "") {
		return nil, 0, 0
	}
	snap, done, err := ix.heldSnapshot()
	if err != nil || snap == nil {
		return nil, 0, 0
	}
	defer done()
	segs := snap.Segments()
	sizes := make([]uint64, len(segs))
	for i, ss := range segs {
		sizes[i] = ss.Count()
	}
	bound, kept := compactBound(sizes)
	if bound == 0 {
		return nil, 0, 0
	}
	adv, err := ix.bi.Advanced()
	if err != nil {
		return nil, 0, 0
	}
	s, ok := adv.(*scorch.Scorch)
	if !ok {
		return nil, 0, 0
	}
	return s, bound, kept
}
