package knowledge

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// mustLeg runs the keyword leg without a deadline.
func mustLeg(cands []candidate, q keywordQuery, total int, v *vocab, limit int) []scored {
	res, err := keywordLeg(context.Background(), cands, q, total, v, limit, nil)
	if err != nil {
		panic(err)
	}
	return res
}

// limitCands indexes texts as put does.
func limitCands(texts []string) ([]candidate, int, *vocab) {
	v := newVocab()
	cands := make([]candidate, len(texts))
	total := 0
	for i, s := range texts {
		ic := v.indexChunk(Chunk{Text: s}, nil)
		cands[i] = candidate{path: fmt.Sprintf("/%03d", i), c: &ic}
		total += int(ic.n)
	}
	return cands, total, v
}

// TestKeywordTermBound: a Keyword query of more distinct terms than the
// bound is searched as its most selective terms among the candidate
// chunks: the same hits and scores as the query of those terms alone,
// whatever unreadable chunks hold (they are not candidates), and an
// unknown word is left out first.
func TestKeywordTermBound(t *testing.T) {
	var texts []string
	for i := range 6 {
		for j := range i + 1 {
			texts = append(texts, fmt.Sprintf("common w%d filler%d", i, j))
		}
	}
	cands, total, v := limitCands(texts)
	run := func(q string, limit int) []scored {
		return top(cands, mustLeg(cands, parseKeyword(q), total, v, limit), len(cands))
	}
	for _, c := range []struct{ long, short string }{
		{"w5 or w3 or w0 or w4 or w1 or w2", "w0 or w1 or w2"},
		{"w5 w3 w0 nosuchword w4 w1 w2", "w0 w1 w2"},
	} {
		got, want := run(c.long, 3), run(c.short, DefaultMaxQueryTerms)
		if !slices.Equal(got, want) || len(want) == 0 && !strings.Contains(c.short, " or ") {
			t.Fatalf("%q bounded to 3 terms: %v, want those of %q: %v", c.long, got, c.short, want)
		}
	}
	if got := run("w5 or w3 or w0 or w4 or w1 or w2", DefaultMaxQueryTerms); len(got) != len(texts) {
		t.Fatalf("default bound: %d hits, want every chunk", len(got))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := keywordLeg(ctx, cands, parseKeyword("w1 w2"), total, v, 3, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled leg: %v", err)
	}
}
