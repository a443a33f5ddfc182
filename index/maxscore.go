package index

// Document-at-a-time MaxScore inside the exact selection (exact.go).
//
// Hybrid search's full-text leg sends the OR of a question's words and
// asks for 200 candidates; the exact selection visited every allowed
// match of the disjunction through Bleve's filtered disjunction searcher
// and advanced every unit's postings at each: 3.3 ms of CPU a query at
// 100k entries (BenchmarkHybridSearch profile, docs/benchmarks.md), the
// hybrid median's floor. For a disjunction of single terms over a large
// allowed set the selection walks the terms' postings itself, segment by
// segment, and skips what cannot enter the top (Turtle & Flood 1995):
//
//   - each term adds at most bound(t) = idf(t)·qtf(t)·(k1+1) (prune.go);
//     the terms are ordered by bound, ascending, and once the heap holds
//     depth candidates with the worst at θ, the longest prefix of terms
//     whose summed bounds stay below θ is non-essential: a document
//     holding only those terms cannot reach θ, so candidates are drawn
//     from the essential terms' postings alone;
//   - a candidate is scored on its essential terms first, then the
//     non-essential ones from the largest bound down, each advanced to the
//     candidate only while the score so far plus the bounds left can still
//     reach θ.
//
// Only documents scoring below θ are skipped, and θ never exceeds the
// final depth-th score, so the kept set is the exhaustive one (ties
// included: a document at θ is scored). Each score is summed over the
// units in query order as in the exhaustive walk, so scores are equal bit
// for bit; the bounds carry a relative margin of 1e-9 against rounding.
// TestMaxScoreMatchesExhaustive compares the two walks. With it the
// leg's CPU fell to 1.9 ms a query in the same profile and the 100k
// hybrid median to 0.87× and 0.66× of before (docs/benchmarks.md,
// "Copies of one paragraph and the hybrid median").
//
// A query word the analyzer splits ("os.File", "don't", "_gen/AMD64")
// is a phrase inside the disjunction; such queries, a quarter of the
// bench's hybrid ones, took the exhaustive walk, whose full-text leg ran
// 2-3× as long as the MaxScore ones (16 of the 100 at 100k: 3.6-8.9 ms
// against a median of 1.0 ms). A phrase now takes part as a cursor over
// its matches, which Bleve's own phrase searcher finds as it does inside
// the exhaustive walk's disjunction: it makes documents candidates and
// scores nothing (its words are units, which score), so its bound is 0
// (see selectMaxScore). The phrase queries' leg fell to 1.5-2.8 ms.
//
// The partition into essential and non-essential terms is made window by
// window of document numbers, with each term's bound there (block-max
// MaxScore: maxscore_walk.go, the bounds in maxscore_block.go).

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/search/query"
	segment "github.com/blevesearch/scorch_segment_api/v2"
	"github.com/contextd/contextd/index/bm25"
)

// boundMargin widens every bound comparison: a document is skipped only
// when its bound times 1+boundMargin is below θ.
const boundMargin = 1e-9

// msPlan is a disjunction of terms and phrases over an allowed set, ready
// for MaxScore.
type msPlan struct {
	aq *allowedQuery
	// gen are the disjunction's terms (they make a document a match);
	// every one is a single-term unit.
	gen []string
	// phrases are the disjunction's phrases (a query word the analyzer
	// splits, "os.File", is one): each makes a document a match without
	// scoring itself, its words are units.
	phrases []query.Query
}

// maxScorePlan returns the MaxScore plan of sel when it applies: sel is
// the catalog prefilter's filtering plan (more than skipMax allowed
// entries) around a disjunction of terms (or one term) on the text field,
// each of which is a single-term unit. nil otherwise (the exhaustive walk).
func (ix *Index) maxScorePlan(sel query.Query, units []scoreUnit) *msPlan {
	if ix.noMaxScore {
		return nil
	}
	aq, ok := sel.(*allowedQuery)
	if !ok || aq.allowed.GetCardinality() <= skipMax {
		return nil
	}
	gen, phrases := disjuncts(aq.inner)
	if len(gen) == 0 && len(phrases) == 0 {
		return nil
	}
	for _, u := range units {
		if len(u.terms) != 1 {
			return nil
		}
	}
	for _, t := range gen {
		if !slices.ContainsFunc(units, func(u scoreUnit) bool { return u.terms[0] == t }) {
			return nil
		}
	}
	return &msPlan{aq: aq, gen: gen, phrases: phrases}
}

// disjuncts returns the terms and the phrases of q when it is a term or a
// phrase on the text field or a disjunction of them; nil, nil for any
// other shape (conjunctions, negations and prefixes are selected as
// written).
func disjuncts(q query.Query) (terms []string, phrases []query.Query) {
	kids := []query.Query{q}
	if d, ok := q.(*query.DisjunctionQuery); ok {
		if d.Min > 1 {
			return nil, nil
		}
		kids = d.Disjuncts
	}
	for _, c := range kids {
		switch c := c.(type) {
		case *query.TermQuery:
			if c.FieldVal != fieldText {
				return nil, nil
			}
			if !slices.Contains(terms, c.Term) {
				terms = append(terms, c.Term)
			}
		case *query.MatchPhraseQuery:
			if c.FieldVal != fieldText {
				return nil, nil
			}
			phrases = append(phrases, c)
		default:
			return nil, nil
		}
	}
	return terms, phrases
}

// msTerm is one unit's cursor in the current segment.
type msTerm struct {
	term  string
	unit  int // its place in the query: scores sum in this order
	idf   float64
	bound float64 // bound(t) times 1+boundMargin
	gen   bool
	it    segment.PostingsIterator
	leap  leaper // advances it (postingAt)
	// at is the posting it returned last (postingAt).
	at   itPosting
	cur  uint64 // the current local document; noDoc past the end
	freq uint64
	dl   float64 // the current document's length (docLen); -1 not read yet (length)
	// A phrase's cursor walks its matches, found by Bleve's phrase
	// searcher as they are asked for (phraseCursor), or, when the walk
	// reads its words itself (words), the documents holding all of them
	// (conj, a cursor per word): a superset of its matches, which ph then
	// only checks (maxscore_phrase.go). base and segEnd are the current
	// segment's global numbers.
	phrase       bool
	ph           *phraseCursor
	pc           *phraseCheck // with words, instead of ph
	pq           query.Query  // the phrase, for a split walk's other cursors
	words        []string
	toks         []phraseTok
	conj         []msTerm
	count        uint64 // a word's postings in the segment (conj's)
	base, segEnd uint64
	// stale: the cursor has not been positioned in the segment yet (the
	// walk seeks it when it needs it: maxscore_walk.go); blk are its
	// block bounds there, nil for a short list.
	stale bool
	blk   *termBlocks
	long  bool // minBlockDF postings or more in the segment
	// fromBlocks: the cursor walks blk's documents, frequencies and lengths
	// instead of the postings (blocksFrom); si is its place in a sparse
	// list's documents; n is the segment's documents, del its deleted
	// ones (nil: none).
	fromBlocks bool
	si         uint32
	n          uint64
	del        *roaring.Bitmap
}

const noDoc = math.MaxUint64

// maxScoreVisit, when set (tests), receives each MaxScore selection's
// count of allowed candidates scored, of those skipped below θ and of the
// windows passed whole (maxscore_walk.go).
var maxScoreVisit func(scored, skipped, windows int)

// maxScoreBlocks, when set (tests), hears of each long list whose cursor
// walks its blocks in a segment (msTerm.blocksFrom), dense or not.
var maxScoreBlocks func(dense bool)

// itPosting is a postings iterator's last posting: its document (noDoc
// past the end), frequency and length; ok is false before the first.
type itPosting struct {
	doc, freq uint64
	dl        float64
	ok        bool
}

// set records the posting p (nil: past the end) as the iterator's last
// and stands the cursor on it.
func (t *msTerm) set(p segment.Posting, err error) error {
	if err != nil {
		return fmt.Errorf("index: %w", err)
	}
	t.at = itPosting{doc: noDoc, ok: true}
	if p != nil {
		t.at = itPosting{doc: p.Number(), freq: p.Frequency(), dl: docLen(p.Norm()), ok: true}
	}
	t.cur, t.freq, t.dl = t.at.doc, t.at.freq, t.at.dl
	return nil
}

// postingAt stands the cursor on the postings' first document at or after
// d. zap's iterator moves forward only, and advanced to the document it
// returned last it returns the next one: a long list's cursor walking its
// blocks reads the postings only for some documents (a frequency or a
// length the blocks do not hold), and reading one document twice (the
// cursor moved onto it in one window, its weight read again by the next
// window read term by term) gave it the next document's frequency and
// length, a wrong score (TestBlockMaxMatchesExhaustive, one run in five
// under load). So the last posting is kept and a document asked for again
// gets it.
func (t *msTerm) postingAt(d uint64) error {
	if t.at.ok && t.at.doc >= d {
		t.cur, t.freq, t.dl = t.at.doc, t.at.freq, t.at.dl
		return nil
	}
	return t.set(t.leap.advance(t.it, d))
}

// postingOf reads from the postings the frequency and the length of local
// document d, which t's blocks say holds the term: an error when the
// postings do not hold it (blocks and postings are read from one segment,
// so that is a defect, never a score to guess).
func (t *msTerm) postingOf(d uint64) error {
	if err := t.postingAt(d); err != nil {
		return err
	}
	if t.cur != d {
		return fmt.Errorf("index: the postings of %q hold no document %d where its blocks do", t.term, d)
	}
	return nil
}

// next moves t to its next document.
func (t *msTerm) next() error {
	switch {
	case t.conj != nil:
		return t.conjFrom(t.cur + 1)
	case t.phrase:
		if err := t.ph.next(); err != nil {
			return err
		}
		t.settle()
		return nil
	case t.fromBlocks:
		return t.blocksFrom(t.cur + 1)
	}
	return t.set(t.it.Next())
}

// seek moves t to its first document at or after d.
func (t *msTerm) seek(d uint64) error {
	switch {
	case t.conj != nil:
		return t.conjFrom(d)
	case t.phrase:
		if err := t.ph.advance(t.base + d); err != nil {
			return err
		}
		t.settle()
		return nil
	case t.fromBlocks:
		return t.blocksFrom(d)
	}
	return t.postingAt(d)
}

// blocksFrom moves a long list's cursor to its first live document at or
// after d, reading the frequency and the length (the segment's lens) from
// its blocks. Decoding zap's postings was 39 % of the walk's CPU (profile
// of "The one argument is the valueDoc" at 1M entries: 2.89 of 7.42 s in
// msTerm.next) when only dense lists read their blocks; the sparse ones'
// postings were then 0.95 of the 6.6 s the walk took over 1,000 calls. A
// frequency the blocks do not hold or a norm not read yet comes from the
// postings, whose iterator then stands on the document (it moves forward
// only, as this cursor does, and skips what the segment deleted, as del
// does here).
func (t *msTerm) blocksFrom(d uint64) error {
	if t.blk.tf4 == nil {
		return t.sparseFrom(d)
	}
	tf4 := t.blk.tf4
	for d < t.n {
		b := tf4[d>>1]
		if b == 0 {
			d = (d | 1) + 1 // both documents of the byte lack the term
			continue
		}
		v := b >> (4 * (d & 1)) & 15
		if v == 0 || t.del != nil && t.del.Contains(uint32(d)) {
			d++
			continue
		}
		return t.fromBlock(d, uint64(v), v == tfUnknown)
	}
	t.cur = noDoc
	return nil
}

// sparseFrom is blocksFrom for a sparse list: the postings of d's block
// from si on, then the next blocks'.
func (t *msTerm) sparseFrom(d uint64) error {
	b := t.blk
	for d < t.n {
		k := d / blockDocs
		t.si = max(t.si, b.at[k])
		end, o := b.at[k+1], uint16(d-k*blockDocs)<<b.shift
		for t.si < end && b.post[t.si] < o {
			t.si++
		}
		if t.si == end {
			d = (k + 1) * blockDocs
			continue
		}
		off, freq, known := b.sparsePosting(t.si)
		doc := k*blockDocs + off
		if t.del != nil && t.del.Contains(uint32(doc)) {
			d = doc + 1
			continue
		}
		return t.fromBlock(doc, freq, !known)
	}
	t.cur = noDoc
	return nil
}

// fromBlock stands the cursor on document d of frequency freq, reading
// from the postings a frequency the blocks do not hold. The length is
// read when the walk weighs the document (length): a cursor moved to the
// first posting at or after a candidate, or a phrase's word leapfrogging
// the others, mostly lands on a document it never weighs, and reading the
// length there missed the cache for nothing (the read was 0.49 of 7.9 s
// of CPU over 1,000 hybrid calls at 1M entries; read on use, the
// full-text leg's times summed 1.4-1.6 % lower, alternated call by call,
// 2026-12-05).
func (t *msTerm) fromBlock(d, freq uint64, unknown bool) error {
	if unknown {
		return t.postingOf(d)
	}
	t.cur, t.freq, t.dl = d, freq, -1
	return nil
}

// length returns the length of the document t stands on: from the
// segment's lengths, or from the postings when no long list's blocks
// recorded it there (the postings' iterator then stands on it: it moves
// forward only, as the cursor does).
func (t *msTerm) length() (float64, error) {
	if t.dl >= 0 {
		return t.dl, nil
	}
	if dl := t.blk.length(t.cur); dl != 0 {
		t.dl = dl
		return dl, nil
	}
	if err := t.postingOf(t.cur); err != nil {
		return 0, err
	}
	return t.dl, nil
}

// selectMaxScore is selectExact for a MaxScore plan.
func (ix *Index) selectMaxScore(ctx context.Context, sel query.Query, plan *msPlan, units []scoreUnit, st *collStats, snap *scorch.IndexSnapshot, depth int, locations bool) (*bleve.SearchResult, error) {
	// The terms: those that only score first, then the disjunction's (by
	// bound ascending, which orders the walk's ties).
	ts := make([]msTerm, 0, len(units))
	for i, u := range units {
		df, err := st.unitFreq(ctx, u)
		if err != nil {
			return nil, err
		}
		t := msTerm{term: u.terms[0], unit: i, gen: slices.Contains(plan.gen, u.terms[0])}
		if df > 0 {
			t.idf = float64(u.qtf) * bm25.IDF(float64(df), float64(st.docs))
			t.bound = t.idf * bm25.MaxTF * (1 + boundMargin)
		}
		ts = append(ts, t)
	}
	// A phrase scores nothing itself (its words are units): its bound is
	// 0, so it is essential only while the terms that only score cannot
	// together reach θ, and a document holding only the words of
	// non-essential phrases and terms scores at most their summed bounds.
	for _, pq := range plan.phrases {
		words, toks := ix.phraseWords(pq)
		t := msTerm{unit: -1, gen: true, phrase: true, pq: pq, words: words, toks: toks}
		if err := ix.phraseCursors(ctx, &t, st.r); err != nil {
			return nil, err
		}
		if t.ph != nil {
			defer t.ph.close()
		}
		ts = append(ts, t)
	}
	slices.SortStableFunc(ts, func(a, b msTerm) int {
		switch {
		case a.gen != b.gen:
			if a.gen {
				return 1
			}
			return -1
		case a.bound < b.bound:
			return -1
		case a.bound > b.bound:
			return 1
		}
		return 0
	})
	nonGen := 0
	for nonGen < len(ts) && !ts[nonGen].gen {
		nonGen++
	}
	segs := snap.Segments()
	ranges, workers := splitWalk(segs, plan.aq.allowed.GetCardinality())
	if maxScoreSplit != nil {
		maxScoreSplit(workers)
	}
	// Every caller's access is checked where a document would enter the
	// heap (msWalk.candidate), not per candidate: the check read the
	// ordinal array, whose reads miss the cache at 1M entries (0.33 of
	// 7.9 s of CPU over 1,000 hybrid calls), for candidates the bounds or
	// the heap then turned away. A fast path for a caller reading every
	// entry measured the same gain (the full-text leg's times summed 9 %
	// lower, the calls' 6-7 %, alternated call by call, 2026-12-05), but
	// its switch made a call's time say whether any entry the caller may
	// not read exists; checked last for every caller, the work per
	// candidate does not depend on what the caller may read.
	allowed := plan.aq.allowed
	ws := make([]*msWalk, workers)
	for i := range ws {
		kept := &msHeap{hits: make([]exactHit, 0, depth), depth: depth, cat: ix.cat}
		wts := ts
		if i > 0 {
			var err error
			if wts, err = ix.cloneTerms(ctx, ts, st); err != nil {
				return nil, err
			}
			defer closePhrases(wts)
		}
		ws[i] = newMSWalk(ctx, ix, wts, nonGen, len(units), allowed, st.avgdl(), kept)
		ws[i].dict = st.dict
	}
	if err := ix.runWalks(ctx, ws, ranges, segs); err != nil {
		return nil, err
	}
	total, skipped, windows := 0, 0, 0
	for _, w := range ws {
		total, skipped, windows = total+w.total, skipped+w.skipped, windows+w.windows
	}
	if maxScoreVisit != nil {
		maxScoreVisit(total-skipped, skipped, windows)
	}
	return ix.exactResult(ctx, sel, mergeKept(ws).kept(), total, locations)
}
