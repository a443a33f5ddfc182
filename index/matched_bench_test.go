package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/search"
	bindex "github.com/blevesearch/bleve_index_api"

	"github.com/contextd/contextd/persist"
)

// BenchmarkMatchedTerms counts the terms of a five-word question in its
// first three hits over 200,000 entries whose segments hold deletions
// (a hundred entries deleted after indexing): from the lists alone
// (matchedTerms) and through Bleve's TermFieldReader, which subtracts
// the deletions and then advances one posting at a time (zap's
// nextDocNumAtOrAfter). The reader's cost grows with the lists' lengths.
func BenchmarkMatchedTerms(b *testing.B) {
	ctx := context.Background()
	st, res := deletedCorpus(b)
	hits := make([]*search.DocumentMatch, 3)
	for i := range hits {
		hits[i] = &search.DocumentMatch{ID: res.Hits[i].ID}
	}
	b.Run("lists", func(b *testing.B) {
		for b.Loop() {
			if _, err := matchedTerms(st, hits, res.Terms); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("term-field-reader", func(b *testing.B) {
		for b.Loop() {
			iids, err := readerIDs(st.r, hits)
			if err != nil {
				b.Fatal(err)
			}
			for _, t := range res.Terms {
				tfr, err := st.r.TermFieldReader(ctx, []byte(t), fieldText, false, false, false)
				if err != nil {
					b.Fatal(err)
				}
				err = holders(tfr, iids, func(int, *bindex.TermFieldDoc) {})
				tfr.Close()
				if err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// BenchmarkDocFreq counts the five terms' documents over the corpus of
// BenchmarkMatchedTerms for a reader of every entry: each segment's list
// counted minus its deletions (docFreq), and through Bleve's
// TermFieldReader, whose iterators each copy their list minus them.
func BenchmarkDocFreq(b *testing.B) {
	ctx := context.Background()
	st, res := deletedCorpus(b)
	if st.readable != nil {
		b.Fatal("the reader of every entry has a readable set")
	}
	b.Run("lists", func(b *testing.B) {
		for b.Loop() {
			clear(st.df)
			for _, t := range res.Terms {
				if _, err := st.docFreq(ctx, t); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("term-field-reader", func(b *testing.B) {
		for b.Loop() {
			for _, t := range res.Terms {
				tfr, err := st.r.TermFieldReader(ctx, []byte(t), fieldText, false, false, false)
				if err != nil {
					b.Fatal(err)
				}
				_ = tfr.Count()
				tfr.Close()
			}
		}
	})
}

// deletedCorpus indexes 200,000 of alice's entries, each holding
// "common" and 3-10 of ten other words, in ten batches, deletes 100 of
// them, and returns the statistics of alice's reader (closed with the
// benchmark) and the answer to a five-word OR question.
func deletedCorpus(b *testing.B) (*collStats, Result) {
	ctx := context.Background()
	ix, err := Open(Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ix.Close() })
	rng := rand.New(rand.NewPCG(3, 9))
	words := []string{"turbine", "nozzle", "vortex", "plasma", "shock", "rotor", "blade", "flow", "wing", "drag"}
	const n, per = 200_000, 20_000
	for batch := range n / per {
		docs := make([]Doc, per)
		for i := range docs {
			w := []string{"common"}
			for range 3 + rng.IntN(8) {
				w = append(w, words[rng.IntN(len(words))])
			}
			docs[i] = aliceDoc(batch*per+i, strings.Join(w, " "))
		}
		if err := ix.Apply(ctx, docs, nil, int64(batch+1)); err != nil {
			b.Fatal(err)
		}
	}
	var deletes []string
	for i := range 100 {
		deletes = append(deletes, fmt.Sprintf("%032x", i*(n/100)))
	}
	if err := ix.Apply(ctx, nil, deletes, n/per+1); err != nil {
		b.Fatal(err)
	}
	ix.Settle()
	st, err := ix.readerStats(Access{Principal: "alice"}, false, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(st.close)
	res, err := ix.Search(ctx, Query{Text: "common turbine vortex blade drag", Mode: persist.FullTextBoolean, Access: Access{Principal: "alice"}, Size: 10})
	if err != nil || len(res.Hits) < 3 {
		b.Fatalf("search: %v, %d hits", err, len(res.Hits))
	}
	return st, res
}
