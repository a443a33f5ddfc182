package index

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// limitsIndex holds, for principal p, word w_i in i+1 entries (w0 the
// rarest), each entry also "common"; principal q privately holds many
// entries of the words p finds rarest, which must not change what p's
// searches keep.
func limitsIndex(t *testing.T, o Options, private bool) *Index {
	t.Helper()
	ix, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	var docs []Doc
	n := 0
	add := func(owner, text string) {
		docs = append(docs, Doc{ID: fmt.Sprintf("%032x", n), Text: text, Owner: owner,
			ThreadID: "t", Source: "user", ContentType: "text", CreatedAt: time.Unix(int64(n), 0)})
		n++
	}
	for i := range 6 {
		for j := range i + 1 {
			add("p", fmt.Sprintf("common w%d filler%d", i, j))
		}
	}
	for _, w := range []string{"alpha", "alphabet", "alpine", "also", "always", "beta", "better"} {
		add("p", w)
	}
	if private {
		for range 40 {
			add("q", "w0 w1 w2 common")
		}
	}
	if err := ix.Apply(context.Background(), docs, nil, 1); err != nil {
		t.Fatal(err)
	}
	return ix
}

func limitsSearch(t *testing.T, ix *Index, text, mode string) Result {
	t.Helper()
	r, err := ix.Search(context.Background(), Query{Text: text, Mode: mode, Access: Access{Principal: "p"}, Size: 100, Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func sameHits(a, b []Hit) bool {
	return slices.EqualFunc(a, b, func(x, y Hit) bool { return x.ID == y.ID && x.Score == y.Score })
}

// TestQueryTermBound: a query of more distinct terms than MaxQueryTerms is
// searched as its MaxQueryTerms most selective terms, counted over the
// caller's readable set: the answer equals that of the shorter query, in
// a disjunction and a conjunction alike, and another principal's private
// entries do not change which terms are kept.
func TestQueryTermBound(t *testing.T) {
	words := []string{"w5", "w3", "w0", "w4", "w1", "w2"} // w0..w2 are the rarest
	for _, private := range []bool{false, true} {
		small := limitsIndex(t, Options{MaxQueryTerms: 3}, private)
		full := limitsIndex(t, Options{}, private)
		for _, c := range []struct{ mode, long, short string }{
			{"boolean", strings.Join(words, " OR "), "w0 OR w1 OR w2"},
			{"match", strings.Join(words, " "), "w0 w1 w2"},
			{"match", strings.Join(words, " ") + " the of and", "w0 w1 w2"}, // stop words count for nothing
		} {
			got := limitsSearch(t, small, c.long, c.mode)
			want := limitsSearch(t, full, c.short, c.mode)
			if !sameHits(got.Hits, want.Hits) || !slices.Equal(got.Terms, want.Terms) {
				t.Fatalf("private=%v %s %q with 3 terms: %v %v, want those of %q: %v %v", private, c.mode, c.long, got.Hits, got.Terms, c.short, want.Hits, want.Terms)
			}
			if all := limitsSearch(t, full, c.long, c.mode); len(all.Terms) != len(words) {
				t.Fatalf("default bound: %s %q scored %v, want every word", c.mode, c.long, all.Terms)
			}
		}
		// Without enough readable entries (q's are not) the disjunction
		// of the kept words finds only p's entries holding them.
		if r := limitsSearch(t, small, strings.Join(words, " OR "), "boolean"); len(r.Hits) != 1+2+3 {
			t.Fatalf("private=%v: %d hits, want the 6 entries of w0, w1, w2", private, len(r.Hits))
		}
	}
}

// TestPrefixBound: a prefix query keeps each distinct prefix once, its
// MaxQueryTerms longest, within MaxPrefixExpansions expansions (the
// first, longest, prefix always whole).
func TestPrefixBound(t *testing.T) {
	// "al" expands to alpha, alphabet, alpine, also, always (5 terms),
	// "alp" to 3, "be" to beta, better (2).
	small := limitsIndex(t, Options{MaxPrefixExpansions: 4}, false)
	full := limitsIndex(t, Options{}, false)
	// Two prefixes of 3 and 2 expansions exceed a budget of 4: the longer
	// is kept whole and the other left out.
	got := limitsSearch(t, small, "be alp", "prefix")
	want := limitsSearch(t, full, "alp", "prefix")
	if !sameHits(got.Hits, want.Hits) {
		t.Fatalf("budget: %v, want %v", got.Hits, want.Hits)
	}
	got = limitsSearch(t, small, "al al al al", "prefix")
	want = limitsSearch(t, full, "al", "prefix")
	if !sameHits(got.Hits, want.Hits) || len(got.Hits) != 5 {
		t.Fatalf("repeated prefix: %v, want the 5 entries of al: %v", got.Hits, want.Hits)
	}
	two := limitsIndex(t, Options{MaxQueryTerms: 2}, false)
	got = limitsSearch(t, two, "c w0 x", "prefix")
	want = limitsSearch(t, full, "w0 c", "prefix")
	if !sameHits(got.Hits, want.Hits) || len(got.Hits) != 1 {
		t.Fatalf("longest two: %v, want %v", got.Hits, want.Hits)
	}
}

// TestCandidateBound: a disjunction too common to prune stops growing its
// selection of the rarest terms at MaxCandidates entries, where the
// default bound ranks exactly (TestPruneAgainstExactBM25).
func TestCandidateBound(t *testing.T) {
	ix := sharedPruneTestIndex(t)
	t.Cleanup(func() { ix.maxCandidates = 0 })
	ctx := context.Background()
	q := `"turbine" OR "nozzle" OR "vortex" OR "plasma" OR "stator" OR "rotor"`
	search := func() Result {
		r, err := ix.Search(ctx, Query{Text: q, Mode: "boolean", Access: Access{Principal: "p"}, Size: 100, Explain: true})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	exact := search()
	ix.maxCandidates = 1
	bounded := search()
	ix.maxCandidates = 0
	if strings.Count(bounded.Plan, `"term"`) != 1 {
		t.Fatalf("bounded selection: %s, want the rarest term alone (its entries already exceed the bound)", bounded.Plan)
	}
	if strings.Count(exact.Plan, `"term"`) < 2 || len(exact.Hits) != 100 || len(bounded.Hits) == 0 {
		t.Fatalf("exact plan %s with %d hits, bounded %d hits", exact.Plan, len(exact.Hits), len(bounded.Hits))
	}
}
