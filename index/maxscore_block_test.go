package index

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/contextd/contextd/index/bm25"
)

// TestBlockBoundsHold: over segments with deletions and frequencies past
// tf4's range, every posting's BM25 weight is at most its block's bound
// for any idf and average length, and what the blocks say of a document's
// frequency is what its postings say, for dense lists (4 bits) and sparse
// ones (the bits a posting's offset leaves) alike.
func TestBlockBoundsHold(t *testing.T) {
	defer func(d, m, e uint64) { blockDocs, minBlockDF, denseEvery = d, m, e }(blockDocs, minBlockDF, denseEvery)
	blockDocs, minBlockDF = 8, 1
	ctx := context.Background()
	ix, err := Open(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	rng := rand.New(rand.NewPCG(5, 9))
	words := []string{"alpha", "beta", "gamma", "delta"}
	for b := range 3 {
		var docs []Doc
		for i := range 300 {
			var w []string
			for range rng.IntN(60) {
				w = append(w, words[min(len(words)-1, int(rng.ExpFloat64()*1.5))])
			}
			for range rng.IntN(50) {
				w = append(w, fmt.Sprintf("filler%d", rng.IntN(100)))
			}
			if i%100 == 7 {
				word := words[rng.IntN(len(words))]
				for range 10 + rng.IntN(5) { // past a sparse posting's frequency in blocks of 8,192
					w = append(w, word)
				}
			}
			docs = append(docs, Doc{ID: fmt.Sprintf("p%03d%04d", b, i), Text: strings.Join(w, " "), Owner: "p",
				ThreadID: "t", Source: "user", ContentType: "text", CreatedAt: time.Unix(int64(i), 0)})
		}
		var dels []string
		for range 30 * b {
			dels = append(dels, fmt.Sprintf("p%03d%04d", rng.IntN(b+1), rng.IntN(300)))
		}
		if err := ix.Apply(ctx, docs, dels, int64(b+1)); err != nil {
			t.Fatal(err)
		}
	}
	segs, done := readSegments(t, ix)
	defer done()
	wide, wider := 0, 0
	for _, ss := range segs {
		n := ss.Segment().Count()
		dict, err := ss.Segment().Dictionary(fieldText)
		if err != nil {
			t.Fatal(err)
		}
		for _, term := range words {
			for _, c := range []struct{ docs, dense uint64 }{{8, 1}, {8, 1 << 40}, {8192, 1}} {
				blockDocs, denseEvery = c.docs, c.dense
				b, err := buildBlocks(dict, term, n, nil)
				if err != nil || b == nil {
					t.Fatalf("%q: blocks %v, %v", term, b, err)
				}
				pl, err := dict.PostingsList([]byte(term), nil, nil)
				if err != nil {
					t.Fatal(err)
				}
				it := pl.Iterator(true, true, false, nil)
				held := map[uint64]bool{}
				for {
					p, err := it.Next()
					if err != nil {
						t.Fatal(err)
					}
					if p == nil {
						break
					}
					d, freq := p.Number(), p.Frequency()
					held[d] = true
					if freq >= tfUnknown {
						wide++
					}
					if b.tf4 == nil && freq >= uint64(b.tfMask()) {
						wider++
					}
					for _, avgdl := range []float64{0.5, 7, 30, 400} {
						for _, idf := range []float64{0.01, 1, 9} {
							w := bm25Term(idf, freq, p.Norm(), avgdl)
							if bd := b.bound(d/blockDocs, idf, bm25.K1*(1-bm25.B), bm25.K1*bm25.B/avgdl); w > bd {
								t.Fatalf("%q document %d (tf %d): weight %v above its block's bound %v (avgdl %v, idf %v)", term, d, freq, w, bd, avgdl, idf)
							}
						}
					}
					got, known := b.freqAt(d)
					switch {
					case known && got != freq:
						t.Fatalf("%q document %d: blocks say frequency %d, postings %d", term, d, got, freq)
					case !known && (b.tf4 != nil && freq < tfUnknown || b.tf4 == nil && freq < uint64(b.tfMask())):
						t.Fatalf("%q document %d: the blocks do not know frequency %d", term, d, freq)
					}
				}
				for d := range n {
					if got, known := b.freqAt(d); !held[d] && (!known || got != 0) {
						t.Fatalf("%q document %d lacks the term; blocks say %d (known %v)", term, d, got, known)
					}
				}
			}
		}
	}
	if wide == 0 || wider == 0 {
		t.Fatalf("%d frequencies reach tf4's limit and %d a sparse list's: the test does not exercise both", wide, wider)
	}
}

// TestBlockCacheConcurrent: searches running at once build, warm and read
// the block cache together (run with -race) and each ranks as the
// exhaustive walk.
func TestBlockCacheConcurrent(t *testing.T) {
	defer func(d, m, e, w uint64) { blockDocs, minBlockDF, denseEvery, warmMinDocs = d, m, e, w }(blockDocs, minBlockDF, denseEvery, warmMinDocs)
	defer func(s uint64) { skipMax = s }(skipMax)
	blockDocs, minBlockDF, denseEvery, warmMinDocs, skipMax = 32, 8, 4, 1, 0
	ix := pruneTestIndex(t)
	defer ix.Close()
	ctx := context.Background()
	want := make([]string, len(pruneTestQueries))
	ix.noMaxScore = true
	for i, q := range pruneTestQueries {
		r, err := ix.Search(ctx, Query{Text: q, Mode: "boolean", Access: Access{Principal: "p"}, Size: 50})
		if err != nil {
			t.Fatal(err)
		}
		want[i] = scored(r)
	}
	ix.noMaxScore = false
	errs := make(chan error, 8)
	for g := range 8 {
		go func() {
			for k := range 6 {
				i := (g + k) % len(pruneTestQueries)
				r, err := ix.Search(ctx, Query{Text: pruneTestQueries[i], Mode: "boolean", Access: Access{Principal: "p"}, Size: 50})
				if err == nil && scored(r) != want[i] {
					err = fmt.Errorf("%s: MaxScore differs from the exhaustive walk:\n got %s\nwant %s", pruneTestQueries[i], scored(r), want[i])
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	ix.blocks.mu.Lock()
	defer ix.blocks.mu.Unlock()
	if ix.blocks.bytes == 0 {
		t.Fatal("no blocks were built: the test does not exercise the cache")
	}
}

// TestBlocksBuiltLater: the search that asks for a long list the second
// time hands its blocks to a build outside the search (buildLater); once
// built, searches use them and still rank as the exhaustive walk.
func TestBlocksBuiltLater(t *testing.T) {
	defer func(d, m, e, w uint64) { blockDocs, minBlockDF, denseEvery, warmMinDocs = d, m, e, w }(blockDocs, minBlockDF, denseEvery, warmMinDocs)
	defer func(s uint64) { skipMax = s }(skipMax)
	blockDocs, minBlockDF, denseEvery, warmMinDocs, skipMax = 32, 8, 4, 1<<40, 0
	ix := pruneTestIndex(t)
	defer ix.Close()
	ix.built = make(chan struct{}, 64)
	ctx := context.Background()
	q := Query{Text: pruneTestQueries[0], Mode: "boolean", Access: Access{Principal: "p"}, Size: 50}
	ix.noMaxScore = true
	want, err := ix.Search(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	ix.noMaxScore = false
	built := func() int {
		ix.blocks.mu.Lock()
		defer ix.blocks.mu.Unlock()
		n := 0
		for _, sb := range ix.blocks.segs {
			sb.mu.Lock()
			for _, e := range sb.terms {
				if e.done.Load() && e.b != nil {
					n++
				}
			}
			sb.mu.Unlock()
		}
		return n
	}
	for round := range 2 {
		got, err := ix.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if scored(got) != scored(want) {
			t.Fatalf("round %d: MaxScore differs from the exhaustive walk", round)
		}
		if n := built(); n != 0 && round == 0 {
			t.Fatalf("the first use built %d lists", n)
		}
	}
	// The second use handed a build over; wait for the builds to end.
	for built() == 0 {
		select {
		case <-ix.built:
		case <-time.After(30 * time.Second):
			t.Fatal("no build outside the search ended")
		}
		if !ix.building.Load() && built() == 0 {
			// One build at a time: a use that found one running asks
			// again, as this search does.
			if _, err := ix.Search(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
	}
	got, err := ix.Search(ctx, q)
	if err != nil || scored(got) != scored(want) {
		t.Fatalf("with the blocks built: %v, differs %v", err, scored(got) != scored(want))
	}
}

// TestWarmSparseWithinBudget: a large segment's warm-up builds its dense
// lists, then its sparse long lists from the longest down while the
// segment's blocks stay within warmBytesPerDoc; the rest wait for use.
func TestWarmSparseWithinBudget(t *testing.T) {
	defer func(d, m, e, w, b uint64) {
		blockDocs, minBlockDF, denseEvery, warmMinDocs, warmBytesPerDoc = d, m, e, w, b
	}(blockDocs, minBlockDF, denseEvery, warmMinDocs, warmBytesPerDoc)
	blockDocs, minBlockDF, denseEvery, warmMinDocs, warmBytesPerDoc = 16, 8, 3, 1, 12
	ctx := context.Background()
	ix, err := Open(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	rng := rand.New(rand.NewPCG(3, 4))
	var docs []Doc
	for i := range 1200 {
		var w []string
		for k := range 40 {
			if rng.IntN(k+2) == 0 { // word k in about one document in k+2
				w = append(w, fmt.Sprintf("word%02d", k))
			}
		}
		docs = append(docs, Doc{ID: fmt.Sprintf("d%05d", i), Text: strings.Join(w, " ") + " filler", Owner: "p",
			ThreadID: "t", Source: "user", ContentType: "text", CreatedAt: time.Unix(int64(i), 0)})
	}
	if err := ix.Apply(ctx, docs, nil, 1); err != nil {
		t.Fatal(err)
	}
	segs, done := readSegments(t, ix)
	defer done()
	var ss *scorch.SegmentSnapshot
	for _, s := range segs {
		if ss == nil || s.Segment().Count() > ss.Segment().Count() {
			ss = s
		}
	}
	n := ss.Segment().Count()
	dict, err := ss.Segment().Dictionary(fieldText)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := ix.blocks.warmed(ss, segs, dict)
	if err != nil {
		t.Fatal(err)
	}
	longestCold, shortestWarm := uint64(0), uint64(math.MaxUint64)
	dense, warmSparse := 0, 0
	it := dict.AutomatonIterator(nil, nil, nil)
	for {
		de, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if de == nil {
			break
		}
		if de.Count < minBlockDF {
			continue
		}
		e := sb.terms[de.Term]
		built := e != nil && e.done.Load() && e.b != nil
		switch {
		case de.Count*denseEvery >= n:
			if !built {
				t.Fatalf("dense list %q (%d of %d documents) not built by the warm-up", de.Term, de.Count, n)
			}
			dense++
		case built:
			warmSparse++
			shortestWarm = min(shortestWarm, de.Count)
		default:
			longestCold = max(longestCold, de.Count)
		}
	}
	if dense == 0 || warmSparse == 0 || longestCold == 0 {
		t.Fatalf("%d dense lists, %d sparse ones built and the longest left %d long: the budget does not cut", dense, warmSparse, longestCold)
	}
	if longestCold > shortestWarm {
		t.Fatalf("a sparse list of %d postings was left for one of %d", longestCold, shortestWarm)
	}
	if uint64(sb.bytes) > warmBytesPerDoc*n {
		t.Fatalf("the warm-up built %d bytes for %d documents, over %d a document", sb.bytes, n, warmBytesPerDoc)
	}
}

// TestLengthsFromPostings: a document whose length the segment's array
// does not hold (0: no list's build recorded it) is weighed with the
// length its postings give, as the exhaustive walk weighs it
// (msTerm.length).
func TestLengthsFromPostings(t *testing.T) {
	defer func(d, m, e, w uint64) { blockDocs, minBlockDF, denseEvery, warmMinDocs = d, m, e, w }(blockDocs, minBlockDF, denseEvery, warmMinDocs)
	defer func(s uint64) { skipMax = s }(skipMax)
	blockDocs, minBlockDF, denseEvery, warmMinDocs, skipMax = 32, 8, 4, 1<<40, 0
	ix := pruneTestIndex(t)
	defer ix.Close()
	ix.inlineBlocks = true
	search := func(q string, exhaustive bool) string { return walkScores(t, ix, q, exhaustive, 50) }
	for _, q := range pruneTestQueries {
		search(q, false) // builds the lists' blocks, which record the lengths
	}
	cleared := 0
	ix.blocks.mu.Lock()
	for _, sb := range ix.blocks.segs {
		for d := range sb.lens {
			if sb.lens[d] != 0 {
				sb.lens[d] = 0
				cleared++
			}
		}
	}
	ix.blocks.mu.Unlock()
	if cleared == 0 {
		t.Fatal("no length was recorded: the test does not exercise the postings' lengths")
	}
	for _, q := range pruneTestQueries {
		if got, want := search(q, false), search(q, true); got != want {
			t.Fatalf("%s: MaxScore without the recorded lengths differs from the exhaustive walk:\n got %s\nwant %s", q, got, want)
		}
	}
}

// TestLongDocumentsLengthFromPostings: the segment's lengths array packs
// two lengths to a word; a document of lenMax terms or more keeps no
// length there and is weighed with its postings' length, and its
// neighbours in the word keep theirs. Walks over such documents score as
// the exhaustive walk does.
func TestLongDocumentsLengthFromPostings(t *testing.T) {
	defer func(d, m, e, w uint64) { blockDocs, minBlockDF, denseEvery, warmMinDocs = d, m, e, w }(blockDocs, minBlockDF, denseEvery, warmMinDocs)
	defer func(s uint64) { skipMax = s }(skipMax)
	blockDocs, minBlockDF, denseEvery, warmMinDocs, skipMax = 32, 8, 4, 1<<40, 0
	ix, err := Open(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	ix.inlineBlocks = true
	rng := rand.New(rand.NewPCG(3, 5))
	// The long documents' terms: one under the limit (recorded), at it,
	// and past it.
	long := map[int]int{9: int(lenMax) - 1, 10: int(lenMax), 41: int(lenMax) + 20}
	var docs []Doc
	for i := range 97 {
		var w []string
		for _, c := range []string{"system", "value", "number"} {
			for range 1 + rng.IntN(3) {
				w = append(w, c)
			}
		}
		n := rng.IntN(40)
		if total, ok := long[i]; ok {
			n = total - len(w)
		}
		for range n {
			w = append(w, fmt.Sprintf("filler%d", rng.IntN(300)))
		}
		docs = append(docs, Doc{ID: fmt.Sprintf("%032x", i), Text: strings.Join(w, " "), Owner: "p",
			ThreadID: "t", Source: "user", ContentType: "text", CreatedAt: time.Unix(int64(i), 0)})
	}
	ctx := context.Background()
	if err := ix.Apply(ctx, docs, nil, 1); err != nil {
		t.Fatal(err)
	}
	search := func(q string, exhaustive bool) string { return walkScores(t, ix, q, exhaustive, 20) }
	queries := []string{`"system" OR "value"`, `"number" OR "filler7" OR "system"`, `"value" OR "filler12"`}
	for range 2 { // the first walks build the blocks
		for _, q := range queries {
			if got, want := search(q, false), search(q, true); got != want {
				t.Fatalf("%s: MaxScore differs from the exhaustive walk:\n got %s\nwant %s", q, got, want)
			}
		}
	}
	// Every document holds "system", whose list is dense: each length is
	// recorded but the long documents'.
	unrecorded, recorded := 0, 0
	ix.blocks.mu.Lock()
	for _, sb := range ix.blocks.segs {
		for d := range uint64(len(sb.lens)) * lensPer {
			b := termBlocks{lens: sb.lens}
			switch dl := b.length(d); {
			case dl == 0:
				unrecorded++
			case dl >= float64(lenMax):
				t.Errorf("document %d: length %v recorded, at or past %d", d, dl, lenMax)
			default:
				recorded++
			}
		}
	}
	ix.blocks.mu.Unlock()
	past := 0 // documents of lenMax terms or more
	for _, d := range docs {
		if len(strings.Fields(d.Text)) >= int(lenMax) {
			past++
		}
	}
	if past != 2 {
		t.Fatalf("%d documents reach the limit, want 2", past)
	}
	padding := len(docs) % int(lensPer) // the last word's free part
	if recorded != len(docs)-past || unrecorded != past+padding {
		t.Fatalf("%d lengths recorded and %d not; want %d and %d (%d documents past the limit)", recorded, unrecorded, len(docs)-past, past+padding, past)
	}
}

// walkScores is the first size hits of q (boolean mode, principal p) with
// their scores, by the MaxScore walk or the exhaustive one.
func walkScores(t *testing.T, ix *Index, q string, exhaustive bool, size int) string {
	t.Helper()
	ix.noMaxScore = exhaustive
	r, err := ix.Search(context.Background(), Query{Text: q, Mode: "boolean", Access: Access{Principal: "p"}, Size: size})
	if err != nil {
		t.Fatal(err)
	}
	return scored(r)
}

// TestPostingReadTwice: a long list's cursor walking its blocks reads
// the postings for a frequency the blocks do not hold, and a document
// read so once and asked for again (the cursor moved onto it, then its
// window read term by term: windowBulk) keeps its own frequency and
// length, dense and sparse lists alike. zap's iterator, advanced to the
// document it returned last, returns the next one.
func TestPostingReadTwice(t *testing.T) {
	defer func(d, m, e, w uint64) { blockDocs, minBlockDF, denseEvery, warmMinDocs = d, m, e, w }(blockDocs, minBlockDF, denseEvery, warmMinDocs)
	ctx := context.Background()
	for _, c := range []struct{ docs, dense uint64 }{{16, 1}, {4096, 0}} {
		blockDocs, minBlockDF, denseEvery, warmMinDocs = c.docs, 1, c.dense, 1<<40
		ix, err := Open(Options{})
		if err != nil {
			t.Fatal(err)
		}
		ix.inlineBlocks = true
		var docs []Doc
		for i := range 60 {
			w := []string{"alpha", "filler"}
			if i%3 == 1 { // past what the blocks hold: read from the postings
				w = append(w, strings.Repeat("alpha ", 15+i%7), strings.Repeat("beta ", i))
			}
			docs = append(docs, Doc{ID: fmt.Sprintf("p%04d", i), Text: strings.Join(w, " "), Owner: "p",
				ThreadID: "t", Source: "user", ContentType: "text", CreatedAt: time.Unix(int64(i), 0)})
		}
		if err := ix.Apply(ctx, docs, nil, 1); err != nil {
			t.Fatal(err)
		}
		segs, done := readSegments(t, ix)
		ss := segs[0]
		dict, err := ss.Segment().Dictionary(fieldText)
		if err != nil {
			t.Fatal(err)
		}
		w := &msWalk{ix: ix}
		term := msTerm{term: "alpha", idf: 1}
		for range buildOnUse { // the blocks are built at the buildOnUse-th use
			if _, err := w.open(&term, ss, segs, dict, nil, true); err != nil {
				t.Fatal(err)
			}
		}
		if !term.fromBlocks || (term.blk.tf4 != nil) != (c.dense == 1) {
			t.Fatalf("blocks of %d: the cursor does not walk the list's blocks as asked (blocks %v, dense %v)", c.docs, term.fromBlocks, c.dense == 1)
		}
		wide := 0
		for d := range ss.Segment().Count() {
			if err := term.position(d); err != nil {
				t.Fatal(err)
			}
			if term.cur != d {
				t.Fatalf("blocks of %d: the cursor stands on %d, not on %d", c.docs, term.cur, d)
			}
			freq, dl := term.freq, term.dl
			if freq < tfUnknown {
				continue
			}
			wide++
			if err := term.postingOf(d); err != nil {
				t.Fatalf("blocks of %d: %v", c.docs, err)
			}
			if term.cur != d || term.freq != freq || term.dl != dl {
				t.Fatalf("blocks of %d, document %d read again: document %d, frequency %d, length %v; first %d, %v", c.docs, d, term.cur, term.freq, term.dl, freq, dl)
			}
		}
		done()
		_ = ix.Close()
		if wide == 0 {
			t.Fatalf("blocks of %d: no frequency was read from the postings: the test does not exercise them", c.docs)
		}
	}
}
