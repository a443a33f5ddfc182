package index

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/contextd/contextd/internal/testtier"
)

// TestMaxScoreMatchesExhaustive: the MaxScore selection (maxscore.go)
// ranks bit for bit as the exhaustive walk (exact.go, noMaxScore) over
// several segments, deletions and updates, a caller who reads part of
// the collection, a thread filter, term pruning on and off, phrases among
// the terms (quoted, or a word the analyzer splits) and depths from 1 to
// past the matches; and it does skip candidates.
func TestMaxScoreMatchesExhaustive(t *testing.T) {
	maxScoreOracle(t, 17, false)
}

// TestMaxScoreDocAtATimeMatchesExhaustive is TestMaxScoreMatchesExhaustive
// with every window walked document by document (noBulk), as windows are
// when a phrase draws candidates or a query has more than 64 units: the
// candidates a phrase's words draw alone are checked there too.
func TestMaxScoreDocAtATimeMatchesExhaustive(t *testing.T) {
	defer func() { noBulk = false }()
	noBulk = true
	maxScoreOracle(t, 23, false)
}

// TestBlockMaxMatchesExhaustive is TestMaxScoreMatchesExhaustive with
// blocks small enough for the collection (maxscore_block.go): the walk
// passes windows whole on their block bounds and still ranks as the
// exhaustive walk.
func TestBlockMaxMatchesExhaustive(t *testing.T) {
	defer func(d, m, e, w uint64) { blockDocs, minBlockDF, denseEvery, warmMinDocs = d, m, e, w }(blockDocs, minBlockDF, denseEvery, warmMinDocs)
	// Dense lists (frequencies kept) and sparse ones (documents kept),
	// built when a query needs them or beforehand (warm).
	// Long lists' cursors walk their blocks (msTerm.blocksFrom), dense
	// and sparse ones; in blocks of 4,096 (the last) a sparse posting
	// holds frequencies up to 14, so the documents repeating a word 15
	// times or more are read from the postings.
	dense, sparse := 0, 0
	maxScoreBlocks = func(d bool) {
		if d {
			dense++
		} else {
			sparse++
		}
	}
	defer func() { maxScoreBlocks = nil }()
	configs := []struct{ docs, min, dense, warm uint64 }{{7, 30, 8, 1}, {4096, 16, 1, 1 << 40}, {16, 4, 1 << 40, 1 << 40}, {64, 1, 1, 1 << 40}, {32, 16, 4, 1 << 40}}
	if !testtier.On(t) {
		// The quick tier (go test ./..., 90 s on two cores): sparse and
		// dense lists, warm-ups, and frequencies past a sparse posting's
		// bits; the long tier adds the other widths.
		configs = configs[:2]
	}
	for _, c := range configs {
		blockDocs, minBlockDF, denseEvery, warmMinDocs = c.docs, c.min, c.dense, c.warm
		maxScoreOracle(t, 17+c.docs, c.docs < 4096) // one window of 4,096 is never passed whole
	}
	if dense == 0 || sparse == 0 {
		t.Fatalf("%d dense and %d sparse lists' cursors walked their blocks: the test does not exercise both", dense, sparse)
	}
}

// maxScoreOracle builds the collection from seed and compares MaxScore
// with the exhaustive walk; blocks: windows must be passed whole.
func maxScoreOracle(t *testing.T, seed uint64, blocks bool) {
	t.Helper()
	ctx := context.Background()
	ix, err := Open(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	ix.inlineBlocks = true // built when the walk asks: the bounds are what is tested
	rng := rand.New(rand.NewPCG(seed, 19))
	words := []string{"turbine", "nozzle", "vortex", "plasma", "stator", "rotor", "flutter", "shock",
		"system", "value", "number", "result", "signal", "engine"}
	doc := func(i int, owner string) Doc {
		var w []string
		for range 1 + rng.IntN(30) {
			// Zipf-like: low indexes common.
			w = append(w, words[min(len(words)-1, int(rng.ExpFloat64()*3))])
		}
		for range rng.IntN(40) {
			w = append(w, fmt.Sprintf("filler%d", rng.IntN(200)))
		}
		if rng.IntN(40) == 0 {
			// A frequency past tf4's range (and a sparse posting's in
			// blocks of 4,096): the cursor reads it from the postings
			// (msTerm.blocksFrom).
			for range 15 + rng.IntN(10) {
				w = append(w, words[rng.IntN(3)])
			}
		}
		return Doc{ID: fmt.Sprintf("%s%030x", owner, i), Text: strings.Join(w, " "), Owner: owner, Readers: []string{"g:g"},
			ThreadID: fmt.Sprintf("t%d", i%3), Source: "user", ContentType: "text", CreatedAt: time.Unix(int64(i), 0)}
	}
	scoredN, skippedN, windowsN := 0, 0, 0
	var bulk [2]atomic.Int64 // windows walked document by document, term by term (by split walks' workers too)
	maxScoreWindow = func(b bool) {
		if b {
			bulk[1].Add(1)
		} else {
			bulk[0].Add(1)
		}
	}
	defer func() { maxScoreWindow = nil }()
	maxScoreVisit = func(s, k, w int) { scoredN += s; skippedN += k; windowsN += w }
	defer func() { maxScoreVisit = nil }()
	used, usedPhrases := 0, 0
	ask := func(queries int) {
		for n := range queries {
			var terms []string
			phrased := false
			for range 1 + rng.IntN(6) {
				w := words[rng.IntN(len(words))]
				switch rng.IntN(5) {
				case 0: // a phrase, as a word the analyzer splits becomes
					w, phrased = w+"."+words[rng.IntN(len(words))], true
				case 1:
					w, phrased = w+" "+words[min(len(words)-1, int(rng.ExpFloat64()*3))], true
				}
				terms = append(terms, `"`+w+`"`)
			}
			q := Query{Text: strings.Join(terms, " OR "), Mode: "boolean", Access: Access{Principal: "p"},
				Size: []int{1, 3, 10, 50, 200, 5000}[n%6]}
			if n%2 == 1 {
				// A member of g reads x's entries too: every entry, where
				// p alone reads three in four (the walk checks each kept
				// document's access the same way for both).
				q.Access.Groups = []string{"g"}
			}
			if n%5 == 4 {
				// A thread: the filtering plan, not the skip plan, so
				// MaxScore runs over a filtered allowed set.
				q.ThreadID = "t1"
				saved := skipMax
				skipMax = 0
				defer func() { skipMax = saved }()
			}
			for _, prune := range []bool{true, false} {
				ix.noPrune = !prune
				ix.noMaxScore = true
				want, err := ix.Search(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				ix.noMaxScore = false
				before := scoredN + skippedN
				got, err := ix.Search(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				if scoredN+skippedN > before {
					used++
					if phrased {
						usedPhrases++
					}
				}
				if scored(got) != scored(want) {
					t.Fatalf("%s (size %d, prune %v, groups %v, thread %q): MaxScore differs from the exhaustive walk: %s", q.Text, q.Size, prune, q.Access.Groups, q.ThreadID, rankDiff(got, want))
				}
			}
		}
	}
	seq := int64(1)
	for b := range 6 {
		var docs []Doc
		for i := b * 700; i < (b+1)*700; i++ {
			owner := "p"
			if i%4 == 0 {
				owner = "x"
			}
			docs = append(docs, doc(i, owner))
		}
		var dels []string
		if b > 0 {
			for range 40 {
				i := rng.IntN(b * 700)
				dels = append(dels, fmt.Sprintf("p%030x", i))
			}
			for range 60 { // updates: a new text under an old id
				docs = append(docs, doc(rng.IntN(b*700)&^3|1, "p"))
			}
		}
		seq++
		if err := ix.Apply(ctx, docs, dels, seq); err != nil {
			t.Fatal(err)
		}
		if b == 3 {
			// Searches before the last deletions and updates: the
			// segments' ordinal arrays are built now, and deletions
			// after them must still leave what they delete out.
			ask(30)
		}
	}
	ask(90)
	ix.noPrune = false
	if used == 0 || usedPhrases == 0 || skippedN == 0 || (blocks && windowsN == 0) || bulk[0].Load() == 0 || bulk[1].Load() == 0 && !noBulk {
		t.Fatalf("MaxScore ran in %d searches (%d with phrases), skipped %d of %d candidates and %d windows, walked %d windows term by term and %d not: the test does not exercise it",
			used, usedPhrases, skippedN, scoredN+skippedN, windowsN, bulk[1].Load(), bulk[0].Load())
	}
	t.Logf("MaxScore ran in %d searches (%d with phrases), skipped %d of %d candidates and %d windows", used, usedPhrases, skippedN, scoredN+skippedN, windowsN)
}

// TestMaxScoreTiesMatchExhaustive: hundreds of copies of one text tie at
// the heap's worst score (as licence headers do at 100k entries); the
// MaxScore selection keeps the same copies (the largest ids) as the
// exhaustive walk at every depth, among other texts above and below.
func TestMaxScoreTiesMatchExhaustive(t *testing.T) {
	ctx := context.Background()
	ix, err := Open(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	rng := rand.New(rand.NewPCG(3, 5))
	var docs []Doc
	add := func(text string) {
		docs = append(docs, Doc{ID: fmt.Sprintf("p%030x", rng.Uint64()), Text: text, Owner: "p",
			ThreadID: "t", Source: "user", ContentType: "text", CreatedAt: time.Unix(int64(len(docs)), 0)}) // random ids: copies are not in id order
	}
	for i := range 900 {
		switch i % 3 {
		case 0:
			add("copyright the go authors all rights reserved licence bsd")
		case 1:
			add(fmt.Sprintf("turbine rotor stator filler%d authors", i))
		default:
			add(fmt.Sprintf("filler%d filler%d go", i, i+1))
		}
	}
	defer func(s uint64) { skipMax = s }(skipMax)
	skipMax = 0                           // MaxScore runs over 900 allowed entries
	for b := 0; b < len(docs); b += 150 { // several segments
		if err := ix.Apply(ctx, docs[b:b+150], nil, int64(b+1)); err != nil {
			t.Fatal(err)
		}
	}
	for _, size := range []int{1, 3, 10, 50, 200, 299, 301, 700} {
		q := Query{Text: "copyright OR authors OR rotor OR licence", Mode: "boolean", Access: Access{Principal: "p"}, Size: size}
		ix.noMaxScore = true
		want, err := ix.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		ix.noMaxScore = false
		got, err := ix.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if scored(got) != scored(want) {
			t.Fatalf("size %d: MaxScore differs from the exhaustive walk:\n got %s\nwant %s", size, scored(got), scored(want))
		}
	}
}

// TestLargestIDs: the selection among ties keeps the k largest ids, for
// every k, against a sort.
func TestLargestIDs(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for n := range 40 {
		at := make([]exactHit, n)
		for i := range at {
			at[i].id = fmt.Sprintf("%04d", rng.IntN(10_000))
		}
		want := make([]string, n)
		for i := range at {
			want[i] = at[i].id
		}
		slices.Sort(want)
		slices.Reverse(want)
		for k := -1; k <= n+1; k++ {
			got := largestIDs(slices.Clone(at), k)
			ids := make([]string, len(got))
			for i, h := range got {
				ids[i] = h.id
			}
			slices.Sort(ids)
			slices.Reverse(ids)
			w := want[:max(0, min(k, n))]
			if !slices.Equal(ids, w) {
				t.Fatalf("n %d k %d: got %v, want %v", n, k, ids, w)
			}
		}
	}
}

// TestMaxScoreSplitMatchesExhaustive: the walk split in two halves with a
// shared θ (maxscore_split.go) ranks bit for bit as the exhaustive walk,
// with blocks of the default size and small ones, and keeps the same
// copies of tied texts.
func TestMaxScoreSplitMatchesExhaustive(t *testing.T) {
	defer func(s uint64, p int, d, m, e, w uint64) {
		splitFrom, blockDocs, minBlockDF, denseEvery, warmMinDocs = s, d, m, e, w
		runtime.GOMAXPROCS(p)
	}(splitFrom, runtime.GOMAXPROCS(2), blockDocs, minBlockDF, denseEvery, warmMinDocs)
	splitFrom = 0
	splits := 0
	maxScoreSplit = func(parts int) {
		if parts > 1 {
			splits++
		}
	}
	defer func() { maxScoreSplit = nil }()
	blockDocs = 256 // 4,200 documents: a cut inside a segment
	maxScoreOracle(t, 23, false)
	// Small blocks; whether a window is passed whole depends on when the
	// other half's θ arrives, so it is not required here.
	blockDocs, minBlockDF, denseEvery, warmMinDocs = 64, 1, 1, 1<<40
	maxScoreOracle(t, 29, false)
	TestMaxScoreTiesMatchExhaustive(t)
	if splits == 0 {
		t.Fatal("no walk was split: the test does not exercise it")
	}
}

// rankDiff says where two rankings part: the first rank that differs and
// the hits each holds that the other does not.
func rankDiff(got, want Result) string {
	key := func(h Hit) string { return fmt.Sprintf("%s:%x", h.ID, math.Float64bits(h.Score)) }
	first := min(len(got.Hits), len(want.Hits))
	for i := range first {
		if key(got.Hits[i]) != key(want.Hits[i]) {
			first = i
			break
		}
	}
	only := func(a, b Result) []string {
		in := map[string]bool{}
		for _, h := range b.Hits {
			in[key(h)] = true
		}
		var out []string
		for i, h := range a.Hits {
			if !in[key(h)] {
				other := ""
				for j, o := range b.Hits {
					if o.ID == h.ID {
						other = fmt.Sprintf(" (there #%d %x)", j, math.Float64bits(o.Score))
					}
				}
				out = append(out, fmt.Sprintf("#%d %s%s", i, key(h), other))
			}
		}
		return out
	}
	return fmt.Sprintf("%d and %d hits, first difference at rank %d; only in MaxScore's %v; only in the exhaustive walk's %v",
		len(got.Hits), len(want.Hits), first, only(got, want), only(want, got))
}
