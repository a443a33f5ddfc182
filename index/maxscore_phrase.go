package index

// Phrases inside the MaxScore walk.
//
// A query word the analyzer splits ("os.File", "it's") is a phrase inside
// the disjunction: it makes a document a match and scores nothing itself
// (its words are units, which score). Its cursor walked the phrase's
// matches as Bleve's phrase searcher finds them, which reads every
// document holding all the words and their positions through zap: over
// 1,000 hybrid calls at 1M entries the phrases took 1.3 ms of CPU a call
// on average, a fifth of the walk, though a quarter of the questions hold
// one (2026-12-05). So when the walk can read a phrase's words itself
// (phraseWords), the phrase's cursor draws the documents holding all of
// them from the words' own cursors, blocks included (conjFrom): a
// superset of its matches. A document drawn only so is scored as any
// candidate, and only one that would enter the heap is checked against
// the words' positions in it (msWalk.verify, phraseCheck). The kept set
// is the exhaustive walk's: whatever enters the heap is a match, and
// every match is a candidate (TestMaxScoreMatchesExhaustive holds
// phrases of both forms).

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	bindex "github.com/blevesearch/bleve_index_api"
	segment "github.com/blevesearch/scorch_segment_api/v2"
)

// phraseWords returns the distinct index terms of a phrase on the text
// field, analyzed as Bleve's phrase query analyzes it, and its tokens:
// each word's place after the first token's (a word the analyzer drops
// leaves a gap, as Bleve's phrase has). nil when a document holding all
// of them need not be a superset of the matches (alternatives at one
// place, fuzziness) or there are none.
func (ix *Index) phraseWords(q query.Query) ([]string, []phraseTok) {
	mp, ok := q.(*query.MatchPhraseQuery)
	if !ok || mp.Fuzziness != 0 {
		return nil, nil
	}
	m := ix.bi.Mapping()
	name := mp.Analyzer
	if name == "" {
		name = m.AnalyzerNameForPath(fieldText)
	}
	a := m.AnalyzerNamed(name)
	if a == nil {
		return nil, nil
	}
	var words []string
	var toks []phraseTok
	first := 0
	seen := map[int]bool{}
	for _, tk := range a.Analyze([]byte(mp.MatchPhrase)) {
		if seen[tk.Position] || tk.Position < first {
			return nil, nil
		}
		seen[tk.Position] = true
		w := string(tk.Term)
		i := slices.Index(words, w)
		if i < 0 {
			i = len(words)
			words = append(words, w)
		}
		if len(toks) == 0 {
			first = tk.Position
		}
		toks = append(toks, phraseTok{word: i, off: uint64(tk.Position - first)})
	}
	return words, toks
}

// openConj places the cursors of a phrase's words before the segment ss,
// the word with the fewest postings first; a word the segment lacks
// leaves the phrase without a document there.
func (w *msWalk) openConj(t *msTerm, ss *scorch.SegmentSnapshot, segs []*scorch.SegmentSnapshot, dict segment.TermDictionary, del *roaring.Bitmap) error {
	if t.conj == nil {
		t.conj = make([]msTerm, len(t.words))
		for i, word := range t.words {
			t.conj[i].term = word
		}
	}
	for i := range t.conj {
		c := &t.conj[i]
		var err error
		if c.count, err = w.open(c, ss, segs, dict, del, true); err != nil {
			return err
		}
		if c.count == 0 {
			// No document here: the phrase's cursor stands past the
			// segment and never asks its words' (left unopened).
			t.cur, t.stale = noDoc, false
			return nil
		}
	}
	slices.SortStableFunc(t.conj, func(a, b msTerm) int { return cmp.Compare(a.count, b.count) })
	return nil
}

// conjFrom moves a phrase's cursor to the first document at or after d
// holding all its words (leapfrog over the words' cursors).
func (t *msTerm) conjFrom(d uint64) error {
	for rounds := 1; ; rounds++ {
		if rounds&1023 == 0 {
			if err := t.pc.ctx.Err(); err != nil {
				return err
			}
		}
		agreed := true
		for i := range t.conj {
			c := &t.conj[i]
			if err := c.position(d); err != nil {
				return err
			}
			if c.cur == noDoc {
				t.cur = noDoc
				return nil
			}
			if c.cur > d {
				d = c.cur
				if i > 0 {
					agreed = false
					break
				}
			}
		}
		if agreed {
			t.cur = d
			return nil
		}
	}
}

// verify reports whether local document d of the segment entered (global
// numbers from base), drawn by phrases' words alone, matches any of the
// query's phrases.
func (w *msWalk) verify(d, base uint64) (bool, error) {
	for i := range w.ts {
		t := &w.ts[i]
		if !t.phrase {
			continue
		}
		var ok bool
		var err error
		if t.pc != nil {
			ok, err = t.pc.holds(d, t.words)
		} else {
			ok, err = t.ph.holds(base + d)
		}
		if ok || err != nil {
			return ok, err
		}
	}
	return false, nil
}

// phraseCursors gives the phrase t of a walk what checks its matches: a
// check of its words' positions when the walk reads its words (words),
// else Bleve's phrase searcher over r, which draws them.
func (ix *Index) phraseCursors(ctx context.Context, t *msTerm, r bindex.IndexReader) error {
	if t.words != nil {
		t.pc = &phraseCheck{ctx: ctx, toks: t.toks}
		return nil
	}
	ph, err := ix.newPhraseCursor(ctx, t.pq, r)
	t.ph = ph
	return err
}

// phraseTok is a phrase's token: its word (an index into the phrase's
// words) and its place after the first token's.
type phraseTok struct {
	word int
	off  uint64
}

// phraseCheck decides whether a document holding all of a phrase's words
// matches it, from the words' positions in the segment entered, as
// Bleve's phrase searcher decides (findPhrasePaths without slop): some
// place of the first token with every other token at its offset from it,
// in the same array positions. Bleve's searcher, asked about a document
// that does not match, read on to the next match, every document holding
// the words on the way: over eight rounds of the 1M bench's 18 questions
// holding a phrase, its Advance was 0.31 of the walk's 1.31 s of CPU
// (2026-12-06). The check reads the positions of the document asked
// about alone.
type phraseCheck struct {
	ctx  context.Context
	toks []phraseTok
	seg  segment.Segment
	dict segment.TermDictionary
	del  *roaring.Bitmap
	// Per word, in the segment entered once a check opened them: its
	// iterator (nil: the segment lacks the word), the document it stands
	// on (noDoc past its last) and that document's positions. zap's
	// iterator, advanced to the document it returned last, returns the
	// next one, so a document asked about again is answered from these.
	open   bool
	its    []segment.PostingsIterator
	leaps  []leaper
	read   []bool
	at     []uint64
	locs   [][]segment.Location
	sorted []bool // locs ascend by position
}

// enter makes the check read the segment seg of dictionary dict
// (deleted documents del, nil: none).
func (c *phraseCheck) enter(seg segment.Segment, dict segment.TermDictionary, del *roaring.Bitmap) {
	c.seg, c.dict, c.del, c.open = seg, dict, del, false
}

// holds reports whether local document d matches the phrase of words; d
// is never below a document asked about before in the segment.
func (c *phraseCheck) holds(d uint64, words []string) (bool, error) {
	if !c.open {
		n := len(words)
		c.its, c.leaps, c.read, c.at = make([]segment.PostingsIterator, n), make([]leaper, n), make([]bool, n), make([]uint64, n)
		c.locs, c.sorted = make([][]segment.Location, n), make([]bool, n)
		for i, w := range words {
			pl, err := c.dict.PostingsList([]byte(w), c.del, nil)
			if err != nil {
				return false, fmt.Errorf("index: %w", err)
			}
			if pl != nil && pl.Count() > 0 {
				c.its[i] = pl.Iterator(false, false, true, nil)
				c.leaps[i] = newLeaper(c.seg, pl, c.its[i], c.del)
			}
		}
		c.open = true
	}
	for i, it := range c.its {
		if it == nil {
			return false, nil
		}
		if !c.read[i] || c.at[i] < d {
			c.read[i] = true
			p, err := c.leaps[i].advance(it, d)
			if err != nil {
				return false, fmt.Errorf("index: %w", err)
			}
			c.at[i], c.locs[i] = noDoc, nil
			if p != nil {
				c.at[i], c.locs[i] = p.Number(), p.Locations()
				c.sorted[i] = slices.IsSortedFunc(c.locs[i], func(a, b segment.Location) int { return cmp.Compare(a.Pos(), b.Pos()) })
			}
		}
		if c.at[i] != d {
			return false, nil
		}
	}
	first := c.toks[0]
	for _, l0 := range c.locs[first.word] {
		if c.placed(l0) {
			return true, nil
		}
	}
	return false, nil
}

// placed reports whether every token of the phrase after the first
// stands at its offset from the first token's place l0.
func (c *phraseCheck) placed(l0 segment.Location) bool {
	for _, tk := range c.toks[1:] {
		if !hasPlace(c.locs[tk.word], c.sorted[tk.word], l0.Pos()+tk.off, l0.ArrayPositions()) {
			return false
		}
	}
	return true
}

// hasPlace reports whether locs hold position pos in the array positions
// ap. zap lists a document's places of a word in ascending position
// (sorted), so a binary search finds it: a phrase whose words a long text
// repeats costs its places times the logarithm, not their product (which
// Bleve's findPhrasePaths costs). Places out of order are searched one by
// one.
func hasPlace(locs []segment.Location, sorted bool, pos uint64, ap []uint64) bool {
	if !sorted {
		return slices.ContainsFunc(locs, func(l segment.Location) bool { return l.Pos() == pos && slices.Equal(l.ArrayPositions(), ap) })
	}
	i, _ := slices.BinarySearchFunc(locs, pos, func(l segment.Location, p uint64) int { return cmp.Compare(l.Pos(), p) })
	for ; i < len(locs) && locs[i].Pos() == pos; i++ {
		if slices.Equal(locs[i].ArrayPositions(), ap) {
			return true
		}
	}
	return false
}

// settle sets a phrase's current local document from its cursor.
func (t *msTerm) settle() {
	t.cur = noDoc
	if g := t.ph.cur; g != noDoc && g < t.segEnd {
		t.cur = g - t.base
	}
}

// phraseCursor walks the matches of a phrase (global document numbers,
// ascending) as the selection asks for them: Bleve's own phrase searcher
// decides what matches, as it does inside the exhaustive walk's
// disjunction. Finding every match first cost what the phrase's words
// cost together: "it's" is the phrase "it s", and at 1M entries the
// bench's six-word query holding it spent 99 ms in the full-text leg
// checking positions in every entry holding both words. A phrase scores
// nothing, so it draws candidates only in the windows where it is
// essential and is not advanced in the others.
type phraseCursor struct {
	ctx   context.Context
	s     search.Searcher
	sctx  *search.SearchContext
	cur   uint64 // the current match, noDoc past the last
	steps int    // matches asked for; 0: cur is not one yet
}

// newPhraseCursor opens q's searcher over r, standing on its first match.
func (ix *Index) newPhraseCursor(ctx context.Context, q query.Query, r bindex.IndexReader) (*phraseCursor, error) {
	s, err := q.Searcher(ctx, r, ix.bi.Mapping(), search.SearcherOptions{Score: "none"})
	if err != nil {
		return nil, fmt.Errorf("index: search: %w", err)
	}
	sctx := &search.SearchContext{DocumentMatchPool: search.NewDocumentMatchPool(s.DocumentMatchPoolSize()+1, 0), IndexReader: r}
	p := &phraseCursor{ctx: ctx, s: s, sctx: sctx}
	if err := p.next(); err != nil {
		_ = s.Close()
		return nil, err
	}
	return p, nil
}

// set records the match m (nil: past the last).
func (p *phraseCursor) set(m *search.DocumentMatch, err error) error {
	if err != nil {
		return fmt.Errorf("index: search: %w", err)
	}
	if p.steps++; p.steps&1023 == 0 {
		if err := p.ctx.Err(); err != nil {
			return err
		}
	}
	if m == nil {
		p.cur = noDoc
		return nil
	}
	p.cur = m.IndexInternalID.Value()
	p.sctx.DocumentMatchPool.Put(m)
	return nil
}

func (p *phraseCursor) next() error {
	if p.cur == noDoc && p.steps > 0 {
		return nil
	}
	return p.set(p.s.Next(p.sctx))
}

// advance moves to the first match at or after g.
func (p *phraseCursor) advance(g uint64) error {
	if p.steps > 0 && (p.cur == noDoc || p.cur >= g) {
		return nil
	}
	return p.set(p.s.Advance(p.sctx, bindex.NewIndexInternalID(nil, g)))
}

// holds reports whether document g matches the phrase; g is never below
// a document asked about before.
func (p *phraseCursor) holds(g uint64) (bool, error) {
	if err := p.advance(g); err != nil {
		return false, err
	}
	return p.cur == g, nil
}

func (p *phraseCursor) close() error { return p.s.Close() }
