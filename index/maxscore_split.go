package index

// A large MaxScore walk shared by two workers, a piece at a time.
//
// At one million entries the hybrid full-text leg (the OR of six words,
// 200 candidates) took 4.8 ms at the median and up to 23 ms, alone on one
// core, while the semantic leg beside it was done in 1.5 ms and left the
// other core idle (`contextd bench --size 1000000`, 2026-12-05, AMD EPYC,
// 2 cores). So a walk over at least splitFrom allowed entries is shared by
// two goroutines, each with its own cursors and heap. The two share θ:
// each worker's θ is the worst of depth real scores, so it never exceeds
// the final depth-th score, and the larger of the two prunes both as
// safely as either alone. The heaps are merged at the end (mergeKept),
// so the kept set and its scores are the single walk's
// (TestMaxScoreSplitMatchesExhaustive).
//
// The documents were first cut in two halves at the middle, and the
// halves did not cost the same: over the bench's hundred questions at 1M
// the first worker walked for 2.45 ms a search and the second for 1.88
// (means, 2026-12-05), so the leg waited for the first. Now they are cut
// into splitPieces pieces of whole windows, which the workers take in
// turn as each finishes one; each worker's pieces ascend, so its cursors
// only move forward, skipping what the other walked. Against the halves,
// alternated call by call in one process (the fastest of three calls of
// each question, two runs), the leg's times summed over the hundred
// questions 267 and 276 ms against 275 and 287.
//
// Walking the pieces whose windows' block bounds sum highest first did
// not help: over the same questions the walk scored as many candidates,
// where with θ at its final value from the start it would score 2,900
// rather than 8,000 (a document scoring high holds several of the words,
// and the block bounds of one window come from different documents).
// Nor did a floor taken before the walk from each long list's 256
// postings of the largest term weight, kept with its blocks, and a short
// list read whole: the depth-th best of those documents' scores (on what
// the blocks and the short lists hold of them) reached 40-60 % of the
// final θ for most of the bench's 1M questions, since a list's best
// postings mostly hold its word alone, and scoring the thousand or so
// documents cost 0.3-1.2 ms a walk, as much as a θ right from the start
// saves (the full-text leg's median 2.7-2.9 ms against 2.2-2.5 with the
// θ of the same question asked before; 2026-12-06).

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/blevesearch/bleve/v2/index/scorch"
	segment "github.com/blevesearch/scorch_segment_api/v2"
)

// splitFrom is the allowed set from which a MaxScore walk is split; below
// it the walk takes about a millisecond or less and a second goroutine,
// its own cursors and dictionaries would cost more than they save. A
// variable for the tests.
var splitFrom uint64 = 1 << 17

// maxScoreSplit, when set (tests), receives each MaxScore selection's
// number of workers.
var maxScoreSplit func(parts int)

// splitPieces is the number of pieces a shared walk's documents are cut
// into: enough that the last piece a worker takes costs little beside the
// walk, few enough that positioning the cursors at each costs nothing
// noticeable.
const splitPieces = 32

// msRange is the local documents [from, to) of segment seg, whose global
// numbers start at base.
type msRange struct {
	seg      int
	base     uint64
	from, to uint64
}

// splitWalk returns the ranges to walk, in order, and the number of
// workers to share them: every segment whole for one worker, or pieces
// of whole windows for two when the allowed set holds at least splitFrom
// entries and a second core can run.
func splitWalk(segs []*scorch.SegmentSnapshot, allowed uint64) (ranges []msRange, workers int) {
	var offset uint64
	for i, ss := range segs {
		n := ss.Segment().Count()
		if ss.Count() > 0 {
			ranges = append(ranges, msRange{seg: i, base: offset, from: 0, to: n})
		}
		offset += n
	}
	if allowed < splitFrom || runtime.GOMAXPROCS(0) < 2 || offset < 4*blockDocs {
		return ranges, 1
	}
	size := max(blockDocs, offset/splitPieces/blockDocs*blockDocs)
	var pieces []msRange
	for _, r := range ranges {
		for from := r.from; from < r.to; from += size {
			pieces = append(pieces, msRange{seg: r.seg, base: r.base, from: from, to: min(from+size, r.to)})
		}
	}
	return pieces, 2
}

// sharedTheta is the largest θ the workers of a split walk reached.
type sharedTheta struct{ bits atomic.Uint64 }

func (s *sharedTheta) load() float64 { return math.Float64frombits(s.bits.Load()) }

// raise makes the shared θ at least v.
func (s *sharedTheta) raise(v float64) {
	for {
		old := s.bits.Load()
		if math.Float64frombits(old) >= v || s.bits.CompareAndSwap(old, math.Float64bits(v)) {
			return
		}
	}
}

// cloneTerms copies the walk's terms for another worker: no cursor yet,
// and each phrase with a cursor of its own.
func (ix *Index) cloneTerms(ctx context.Context, ts []msTerm, st *collStats) ([]msTerm, error) {
	out := make([]msTerm, len(ts))
	for i, t := range ts {
		t.it, t.leap, t.ph, t.pc, t.conj = nil, leaper{}, nil, nil, nil
		if t.phrase {
			if err := ix.phraseCursors(ctx, &t, st.r); err != nil {
				closePhrases(out[:i])
				return nil, err
			}
		}
		out[i] = t
	}
	return out, nil
}

// closePhrases closes the phrase cursors of ts.
func closePhrases(ts []msTerm) {
	for _, t := range ts {
		if t.ph != nil {
			_ = t.ph.close()
		}
	}
}

// runWalks walks the ranges with the workers ws: alone in this goroutine,
// or each taking the next range left in turn, the first here and the
// others beside it, with θ shared and dictionaries of their own.
func (ix *Index) runWalks(ctx context.Context, ws []*msWalk, ranges []msRange, segs []*scorch.SegmentSnapshot) error {
	ords := make(map[int][]uint32, len(segs))
	for _, r := range ranges {
		if _, ok := ords[r.seg]; ok {
			continue
		}
		e, err := ix.segmentOrds(segs[r.seg], segs)
		if err != nil {
			return err
		}
		ords[r.seg] = e.ords
	}
	var taken atomic.Int64
	walk := func(w *msWalk) error {
		at, done := -1, false // the segment entered; its terms ran out
		for {
			i := int(taken.Add(1)) - 1
			if i >= len(ranges) {
				return nil
			}
			r := ranges[i]
			if r.seg != at {
				if err := w.enter(segs[r.seg], segs, r.base); err != nil {
					return err
				}
				at, done = r.seg, false
			}
			if done {
				continue
			}
			var err error
			if done, err = w.walkRange(segs[r.seg].Segment().Count(), r.base, ords[r.seg], r.from, r.to); err != nil {
				return err
			}
		}
	}
	if len(ws) == 1 {
		return walk(ws[0])
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	shared := &sharedTheta{}
	errs := make([]error, len(ws))
	var wg sync.WaitGroup
	for i, w := range ws {
		w.ctx, w.shared = ctx, shared
		if i == 0 {
			continue
		}
		dicts := map[*scorch.SegmentSnapshot]segment.TermDictionary{}
		w.dict = func(ss *scorch.SegmentSnapshot) (segment.TermDictionary, error) {
			if d, ok := dicts[ss]; ok {
				return d, nil
			}
			d, err := ss.Segment().Dictionary(fieldText)
			if err != nil {
				return nil, fmt.Errorf("index: %w", err)
			}
			dicts[ss] = d
			return d, nil
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if errs[i] = walk(w); errs[i] != nil {
				cancel()
			}
		}()
	}
	if errs[0] = walk(ws[0]); errs[0] != nil {
		cancel()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// mergeKept is the heap of the best depth candidates of the workers'
// heaps: each holds every candidate of its half that can still be among
// the best depth of all (its heap and the ties with its worst), and the
// merge keeps them as one walk's heap would.
func mergeKept(ws []*msWalk) *msHeap {
	if len(ws) == 1 {
		return ws[0].kept
	}
	first := ws[0].kept
	m := &msHeap{hits: make([]exactHit, 0, first.depth), depth: first.depth, cat: first.cat}
	for _, w := range ws {
		for _, hs := range [][]exactHit{w.kept.hits, w.kept.ties} {
			for _, h := range hs {
				if m.full() && h.score < m.worst() {
					continue
				}
				m.add(h)
			}
		}
	}
	return m
}
