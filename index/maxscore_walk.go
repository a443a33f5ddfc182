package index

// The MaxScore walk, window by window (block-max MaxScore).
//
// With one bound per term for the whole collection, the 200 candidates
// hybrid search keeps over a million entries leave θ below the common
// words' summed bounds: every posting of a common word was a candidate,
// and the full-text leg took 6.1 ms at the median and 25 ms at worst
// (docs/benchmarks.md, "One million entries"). So each segment is walked
// in windows of blockDocs document numbers, and in each window a term's
// bound is the smaller of what is known there:
//
//   - 0 when its cursor already stands past the window or its block there
//     holds no posting;
//   - its block's bound (maxscore_block.go) for a long postings list;
//   - bound(t) otherwise: a short list is positioned at the window first
//     (it has no posting there: 0), a long one without blocks is not.
//
// The terms are ordered by these bounds as MaxScore orders them over the
// whole collection (the terms that only score first, then the
// disjunction's, ascending; but see arrange for the words of phrases),
// the essential ones draw the window's candidates, and a window whose
// bounds sum below θ is passed without reading a posting. A document is
// skipped only when the bounds of its window say it cannot reach θ, so
// the kept set and its scores are the exhaustive walk's, as before
// (TestBlockMaxMatchesExhaustive, with small blocks; TestBlockBoundsHold).
// The bounds come from every document of a block, readable by the caller
// or not, as the postings the walk reads always did: what a
// caller cannot read moves only how much is skipped, never a score.

import (
	"context"
	"fmt"
	"math/bits"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	segment "github.com/blevesearch/scorch_segment_api/v2"

	"github.com/contextd/contextd/index/bm25"
)

// msWalk is one selection's state across segments.
type msWalk struct {
	ctx    context.Context
	ix     *Index
	ts     []msTerm
	nonGen int // ts[:nonGen] only score
	// contrib[u] is unit u's term weight in the candidate, when bit u of
	// has is set: the score sums them in unit order, as the exhaustive
	// walk does, visiting the set bits only. A flag per unit, tested and
	// cleared for each of the 24,000 candidates of a 1M walk, was 0.76 of
	// 7.82 s of CPU over 800 hybrid calls (branches mispredicted).
	contrib []float64
	has     []uint64
	// genUnits has bit u set when unit u is a term of the disjunction
	// (units 0-63: windowBulk's documents).
	genUnits uint64
	allowed  *roaring.Bitmap // the ordinals the caller may read
	avgdl    float64
	c, e     float64 // k1·(1−b) and k1·b/avgdl (maxscore_block.go)
	kept     *msHeap
	theta    float64
	// total counts the candidates scored and those skipped below θ
	// (skipped, readable or not: the bounds are asked before the access).
	total   int
	skipped int
	steps   int
	windows int // windows passed whole (tests)
	// The current window: each term's bound there, the terms in bound
	// order (positions in ts) and the running sums of their bounds.
	wb    []float64
	order []int
	ub    []float64
	// order2 and ub2 are the other arrangement's (arrange).
	order2 []int
	ub2    []float64
	// dict opens a segment's dictionary (collStats.dict, or a worker's
	// own: a dictionary's reader serves one goroutine); shared is the θ
	// the workers of a split walk share (maxscore_split.go), nil alone.
	dict   func(*scorch.SegmentSnapshot) (segment.TermDictionary, error)
	shared *sharedTheta
	bs     bulkScratch // windowBulk's
}

// arrange orders the terms for the current window in order's storage,
// the first fixed of them first and the others by window bound
// ascending, fills ub (its storage too) with the running sums of their
// bounds, and returns the order and its first essential position.
//
// The terms that only score (a phrase's words, or the terms a pruning
// selection leaves out: prune.go) cannot make a document a match, so
// MaxScore places them first (fixed = w.nonGen) and never draws
// candidates from them. A phrase's rare words then lift every running sum
// above θ and keep even the commonest words of the disjunction essential:
// "TODO(minux): correctly handle __i686.get_pc_thunk.bx without set" drew
// every document holding "set", "without" or "handl". Ordered with the
// others (fixed = 0), such a word draws candidates itself, checked as
// the words of a phrase read by the walk are (lazy: a document none of
// the disjunction's terms holds is a match only if a phrase holds it,
// msWalk.verify), and the common words fall below θ. Drawing from a word
// that only scores pays only when it lets some of the disjunction's
// terms go: while θ is low every term is essential, and a word that only
// scores then draws documents that are no match (a pruning selection of
// the two rarest terms of "Using scoring has several disadvantages.
// MaxExact" drew the 274k documents holding "use" and took 11 ms instead
// of 4.5). So the window takes the order in which fewer of the
// disjunction's terms are essential (window). Over the bench's hundred
// questions at 1M, alternated call by call, the fastest of three calls
// of each summed 452 and 391 ms against 474 and 405, and the questions
// holding a phrase took 4.1-6.3 ms where they took 7.5-11.5
// (2026-12-06).
func (w *msWalk) arrange(order []int, ub []float64, fixed int) ([]int, int) {
	order = order[:0]
	for i := range w.ts {
		order = append(order, i)
		for k := len(order) - 1; k > fixed && w.wb[order[k]] < w.wb[order[k-1]]; k-- {
			order[k], order[k-1] = order[k-1], order[k]
		}
	}
	s := 0.0
	for k, i := range order {
		s += w.wb[i]
		ub[k] = s * (1 + boundMargin)
	}
	ess := fixed
	for ess < len(order) && ub[ess] < w.theta {
		ess++
	}
	return order, ess
}

// genEssential counts the disjunction's terms among ess (positions in
// w.ts) that hold a posting in the window.
func (w *msWalk) genEssential(ess []int) int {
	n := 0
	for _, i := range ess {
		if w.ts[i].gen && w.wb[i] > 0 {
			n++
		}
	}
	return n
}

func newMSWalk(ctx context.Context, ix *Index, ts []msTerm, nonGen, units int, allowed *roaring.Bitmap, avgdl float64, kept *msHeap) *msWalk {
	w := &msWalk{ctx: ctx, ix: ix, ts: ts, nonGen: nonGen, contrib: make([]float64, units), has: make([]uint64, (units+63)/64),
		allowed: allowed, avgdl: avgdl, c: bm25.K1 * (1 - bm25.B), e: bm25.K1 * bm25.B / avgdl, kept: kept,
		wb: make([]float64, len(ts)), order: make([]int, len(ts)), ub: make([]float64, len(ts)),
		order2: make([]int, len(ts)), ub2: make([]float64, len(ts))}
	for i := range ts {
		if t := &ts[i]; t.gen && !t.phrase && t.unit >= 0 && t.unit < 64 {
			w.genUnits |= 1 << t.unit
		}
	}
	return w
}

// enter opens the walk's terms in the segment ss of global numbers from
// base (segs is the reader's segments): every cursor stands before the
// segment, and the windows walked in it position them (forward only).
func (w *msWalk) enter(ss *scorch.SegmentSnapshot, segs []*scorch.SegmentSnapshot, base uint64) error {
	n := ss.Segment().Count()
	dict, err := w.dict(ss)
	if err != nil {
		return err
	}
	del := deletions(ss)
	for i := range w.ts {
		t := &w.ts[i]
		if t.phrase {
			t.cur, t.stale, t.base, t.segEnd = noDoc, true, base, base+n
			if t.words != nil {
				t.pc.enter(ss.Segment(), dict, del)
				if err := w.openConj(t, ss, segs, dict, del); err != nil {
					return err
				}
			}
			continue
		}
		if _, err := w.open(t, ss, segs, dict, del, t.idf > 0); err != nil {
			return err
		}
	}
	return nil
}

// walkRange walks the local documents [from, to) (from a multiple of
// blockDocs) of the segment entered, of n documents, with global numbers
// from base and ordinal array ords; done reports that no term has a
// document left in the segment.
func (w *msWalk) walkRange(n, base uint64, ords []uint32, from, to uint64) (done bool, err error) {
	for ws := from; ws < min(to, n); ws += blockDocs {
		if done, err := w.window(ws, min(ws+blockDocs, to, n), base, ords); err != nil || done {
			return done, err
		}
	}
	return false, nil
}

// open places t's cursor before the segment ss (of the reader's
// segments segs, deleted documents del), with its blocks when the list is
// long and blocks is set; count is the list's postings there.
func (w *msWalk) open(t *msTerm, ss *scorch.SegmentSnapshot, segs []*scorch.SegmentSnapshot, dict segment.TermDictionary, del *roaring.Bitmap, blocks bool) (count uint64, err error) {
	n := ss.Segment().Count()
	t.cur, t.stale, t.blk, t.long, t.fromBlocks, t.si, t.n, t.del, t.leap = noDoc, false, nil, false, false, 0, n, del, leaper{}
	pl, err := dict.PostingsList([]byte(t.term), del, nil)
	if err != nil {
		return 0, fmt.Errorf("index: %w", err)
	}
	if pl == nil || pl.Count() == 0 {
		return 0, nil
	}
	t.it, t.at = pl.Iterator(true, true, false, t.it), itPosting{}
	t.leap = newLeaper(ss.Segment(), pl, t.it, del)
	t.stale = true
	t.long = pl.Count() >= minBlockDF
	if t.long && blocks {
		later := w.ix.buildLater
		if w.ix.inlineBlocks {
			later = nil
		}
		if t.blk, err = w.ix.blocks.blocks(ss, segs, dict, t.term, later); err != nil {
			return 0, err
		}
		t.fromBlocks = t.blk != nil && t.blk.lens != nil
		if t.fromBlocks && maxScoreBlocks != nil {
			maxScoreBlocks(t.blk.tf4 != nil)
		}
	}
	return pl.Count(), nil
}

// weigh records c as unit u's weight in the candidate and returns it.
func (w *msWalk) weigh(u int, c float64) float64 {
	w.contrib[u] = c
	w.has[u>>6] |= 1 << (u & 63)
	return c
}

// allows reports whether local document d (of ordinal array ords) is
// one the caller may read, and sets *o to its ordinal.
func (w *msWalk) allows(d uint64, ords []uint32, o *uint32) bool {
	*o = noOrd
	if d < uint64(len(ords)) {
		*o = ords[d]
	}
	if *o == noOrd {
		return false
	}
	return w.allowed.Contains(*o)
}

// position moves t to its first document at or after d unless it stands
// there already.
func (t *msTerm) position(d uint64) error {
	if !t.stale && t.cur >= d {
		return nil
	}
	t.stale = false
	return t.seek(d)
}

// window walks the local documents [ws, we); done reports that no term
// has a document left in the segment. A window whose essential terms are
// all terms is read term by term (windowBulk, maxscore_bulk.go), any
// other document by document.
func (w *msWalk) window(ws, we, base uint64, ords []uint32) (done bool, err error) {
	if w.shared != nil {
		w.theta = max(w.theta, w.shared.load())
	}
	ts := w.ts
	sum := 0.0
	left := false
	for i := range ts {
		t := &ts[i]
		b := 0.0
		switch {
		case !t.stale && t.cur >= we:
		case t.phrase || t.idf <= 0:
			left = true // scores nothing (a phrase's words are units)
		case t.blk != nil:
			b = t.blk.bound(ws/blockDocs, t.idf, w.c, w.e)
			left = true
		case t.long:
			// Without blocks (not built yet, or no room) a long list is
			// moved only to candidates, as the walk did before blocks:
			// placing it at every window read it whole, and at 100k
			// entries, where most lists met are met for the first time,
			// the hybrid median rose 1.7×.
			b = t.bound
			left = true
		default:
			if err := t.position(ws); err != nil {
				return false, err
			}
			if t.cur < we {
				b = t.bound
			}
		}
		if t.cur != noDoc || t.stale {
			left = true
		}
		w.wb[i] = b
		sum += b
	}
	if !left {
		return true, nil
	}
	if sum*(1+boundMargin) < w.theta {
		w.windows++
		return false, nil
	}
	// The order (arrange): the terms that only score first, unless
	// ordering them with the others leaves fewer of the disjunction's
	// terms essential.
	order, ess := w.arrange(w.order, w.ub, w.nonGen)
	if w.nonGen > 0 {
		if o, e := w.arrange(w.order2, w.ub2, 0); w.genEssential(o[e:]) < w.genEssential(order[ess:]) {
			order, ess = o, e
			w.order, w.order2, w.ub, w.ub2 = w.order2, w.order, w.ub2, w.ub
		}
	}
	bulk := w.bulk(order[ess:])
	if maxScoreWindow != nil {
		maxScoreWindow(bulk)
	}
	if bulk {
		return false, w.windowBulk(ws, we, base, ords, order, ess)
	}
	for k := ess; k < len(order); k++ {
		if err := ts[order[k]].position(ws); err != nil {
			return false, err
		}
	}
	for ess < len(order) {
		d := uint64(noDoc)
		for k := ess; k < len(order); k++ {
			d = min(d, ts[order[k]].cur)
		}
		if d >= we {
			break
		}
		known := 0.0
		dl := -1.0 // d's length, once a term cursor stands on d
		// matched: d holds a term of the disjunction or matches a phrase
		// read by Bleve's searcher; otherwise only the words of phrases
		// (those read by the walk, or terms that only score: arrange)
		// drew it (lazy), and d is a match only if one of the phrases
		// holds it (verify).
		matched, lazy := false, false
		var err error
		for k := ess; k < len(order); k++ {
			t := &ts[order[k]]
			if t.cur != d {
				continue
			}
			switch {
			case t.words != nil:
				lazy = true
				if dl < 0 {
					if dl, err = t.conj[0].length(); err != nil {
						return false, err
					}
				}
			case !t.phrase:
				if dl < 0 {
					if dl, err = t.length(); err != nil {
						return false, err
					}
				}
				matched = matched || t.gen
				lazy = lazy || !t.gen
			default:
				matched = true
			}
			if t.idf > 0 {
				known += w.weigh(t.unit, bm25Weight(t.idf, t.freq, dl, w.avgdl))
			}
			if err := t.next(); err != nil {
				return false, err
			}
		}
		raised, err := w.candidate(d, base, ords, order, ess, known, dl, matched, lazy)
		if err != nil {
			return false, err
		}
		if raised {
			for ess < len(order) && w.ub[ess] < w.theta {
				ess++
			}
		}
	}
	return false, nil
}

// candidate finishes local document d of the window, drawn by the
// essential terms order[ess:] with their weights (unit weights in
// contrib and has, their sum known; dl its length, -1 when no term cursor
// read it): it is skipped when the bounds say it cannot reach θ or the
// caller may not read it, else scored on the other terms and kept when
// it enters the heap. raised reports that θ rose.
func (w *msWalk) candidate(d, base uint64, ords []uint32, order []int, ess int, known, dl float64, matched, lazy bool) (raised bool, err error) {
	if w.steps++; w.steps&1023 == 0 {
		if err := w.ctx.Err(); err != nil {
			return false, err
		}
	}
	ts, ub := w.ts, w.ub
	// The access is asked last, where d would enter the heap
	// (selectMaxScore): θ holds readable scores only, so scoring a
	// document the caller may not read changes nothing but the work.
	if ess > 0 && (known+ub[ess-1])*(1+boundMargin) < w.theta {
		clear(w.has)
		w.total++
		w.skipped++
		return false, nil
	}
	w.total++
	full := w.kept.full()
	for k := ess - 1; k >= 0; k-- {
		if (known+ub[k])*(1+boundMargin) < w.theta {
			clear(w.has)
			w.skipped++
			return false, nil
		}
		t := &ts[order[k]]
		if t.phrase || w.wb[order[k]] == 0 {
			continue // scores nothing here
		}
		// A dense list's blocks answer without moving the cursor
		// (every posting of d carries d's length); a sparse list's
		// cursor reading its blocks moves forward within the block
		// more cheaply than a search finds d there.
		freq, fdl := uint64(0), dl
		if t.blk == nil || t.stale || t.cur < d {
			got := false
			if t.blk != nil && dl >= 0 && (t.blk.tf4 != nil || !t.fromBlocks) {
				freq, got = t.blk.freqAt(d)
			}
			if !got {
				if err := t.position(d); err != nil {
					return false, err
				}
			}
		}
		if !t.stale && t.cur == d {
			if dl < 0 {
				if dl, err = t.length(); err != nil {
					return false, err
				}
			}
			freq, fdl = t.freq, dl
		}
		if freq > 0 && t.idf > 0 {
			known += w.weigh(t.unit, bm25Weight(t.idf, freq, fdl, w.avgdl))
		}
		matched = matched || freq > 0 && t.gen
	}
	score := 0.0
	for i, set := range w.has {
		for ; set != 0; set &= set - 1 {
			score += w.contrib[i<<6|bits.TrailingZeros64(set)]
		}
		w.has[i] = 0
	}
	if full && score < w.kept.worst() {
		return false, nil
	}
	if !matched && lazy {
		if ok, err := w.verify(d, base); err != nil || !ok {
			return false, err
		}
	}
	o := uint32(noOrd)
	if !w.allows(d, ords, &o) {
		return false, nil
	}
	w.kept.add(exactHit{doc: base + d, score: score, ord: o})
	if w.kept.full() && w.kept.worst() > w.theta {
		w.theta = w.kept.worst()
		if w.shared != nil {
			w.shared.raise(w.theta)
		}
		return true, nil
	}
	return false, nil
}
