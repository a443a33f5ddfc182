package index

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	segment "github.com/blevesearch/scorch_segment_api/v2"
	zapx "github.com/blevesearch/zapx/v17"
)

// TestLeapMatchesAdvance: a leaper's advance returns what zap's own
// Advance returns (document, frequency, norm and every location), for
// lists of one chunk and of many, in iterators with and without
// locations, asked about documents near and far apart, in a segment
// built in memory and in one read from its file; and it leaps.
func TestLeapMatchesAdvance(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 14))
	// "turbine" is in every entry (6,000 postings: zap's default chunk
	// mode cuts them into 6 chunks), "rotor" in about a third, "vortex"
	// in about 1 in 40 (one chunk), "plasma" in one.
	words := []string{"nozzle", "shock", "flow", "blade", "stage"}
	var docs []Doc
	for i := range 6000 {
		var w []string
		for range 3 + rng.IntN(20) {
			w = append(w, words[rng.IntN(len(words))])
		}
		for range 1 + rng.IntN(3) {
			w = slices.Insert(w, rng.IntN(len(w)+1), "turbine")
		}
		if rng.IntN(3) == 0 {
			w = slices.Insert(w, rng.IntN(len(w)+1), "rotor")
		}
		if rng.IntN(40) == 0 {
			w = slices.Insert(w, rng.IntN(len(w)+1), "vortex")
		}
		if i == 4321 {
			w = append(w, "plasma")
		}
		docs = append(docs, aliceDoc(i, strings.Join(w, " ")))
	}
	mem, err := Open(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	dir := t.TempDir()
	file, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, ix := range []*Index{mem, file} {
		if err := ix.Apply(ctx, docs, nil, 1); err != nil {
			t.Fatal(err)
		}
	}
	checkLeaps(t, mem, rng, "memory")
	checkLeaps(t, reopen(t, file, dir), rng, "file")
}

// checkLeaps compares leaps with zap's Advance in every segment of ix,
// which must be of kind ("memory": zap.SegmentBase, "file": zap.Segment).
func checkLeaps(t *testing.T, ix *Index, rng *rand.Rand, kind string) {
	segs, done := readSegments(t, ix)
	defer done()
	leaps := 0
	leapSeen = func() { leaps++ }
	defer func() { leapSeen = nil }()
	compared := 0
	for _, ss := range segs {
		if _, file := ss.Segment().(*zapx.Segment); file != (kind == "file") {
			t.Fatalf("a segment of type %T, not one in %s", ss.Segment(), kind)
		}
		seg := ss.Segment()
		dict, err := seg.Dictionary(fieldText)
		if err != nil {
			t.Fatal(err)
		}
		for _, term := range []string{"turbin", "rotor", "vortex", "plasma", "nozzl"} {
			for _, locs := range []bool{false, true} {
				for round := range 4 {
					pl, err := dict.PostingsList([]byte(term), nil, nil)
					if err != nil {
						t.Fatal(err)
					}
					if pl == nil || pl.Count() == 0 {
						continue
					}
					want := pl.Iterator(true, true, locs, nil)
					got := pl.Iterator(true, true, locs, nil)
					l := newLeaper(seg, pl, got, nil)
					// Gaps from one document to a few chunks' worth.
					maxGap := []uint64{2, 50, 700, 3000}[round]
					for d := uint64(0); ; d += 1 + rng.Uint64N(maxGap) {
						wp, err := want.Advance(d)
						if err != nil {
							t.Fatal(err)
						}
						gp, err := l.advance(got, d)
						if err != nil {
							t.Fatal(err)
						}
						compared++
						if msg := samePosting(wp, gp); msg != "" {
							t.Fatalf("%q (locations %v) advanced to %d: %s", term, locs, d, msg)
						}
						if wp == nil {
							break
						}
						d = max(d, wp.Number())
					}
				}
			}
		}
	}
	if leaps == 0 || compared < 1000 {
		t.Fatalf("%s: %d leaps over %d advances: the test does not exercise the leap", kind, leaps, compared)
	}
	t.Logf("%s: %d leaps over %d advances", kind, leaps, compared)
}

// samePosting says how two postings differ ("" when they do not).
func samePosting(want, got segment.Posting) string {
	switch {
	case want == nil && got == nil:
		return ""
	case want == nil || got == nil:
		return "one iterator ended, the other did not"
	case want.Number() != got.Number():
		return "documents differ"
	case want.Frequency() != got.Frequency():
		return "frequencies differ"
	case want.Norm() != got.Norm():
		return "norms differ"
	}
	wl, gl := want.Locations(), got.Locations()
	if len(wl) != len(gl) {
		return "location counts differ"
	}
	for i := range wl {
		if wl[i].Pos() != gl[i].Pos() || wl[i].Start() != gl[i].Start() || wl[i].End() != gl[i].End() ||
			!slices.Equal(wl[i].ArrayPositions(), gl[i].ArrayPositions()) {
			return "locations differ"
		}
	}
	return ""
}
