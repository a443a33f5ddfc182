package postgres

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/persisttest"
	"github.com/contextd/contextd/persist/postgres/pgtest"
)

// benchStore fills st with n entries (persisttest.BenchFill, texts with
// words for full-text search) and analyzes the tables.
func benchStore(b *testing.B, st *Store, n int) int {
	b.Helper()
	threads := persisttest.BenchFill(b, st, n, true)
	if _, err := st.pool.Exec(context.Background(), `ANALYZE`); err != nil {
		b.Fatal(err)
	}
	return threads
}

// timed is persisttest.Timed.
var timed = persisttest.Timed

// BenchmarkSearch is persist/sqlite's BenchmarkSearch on PostgreSQL: the
// page query of search_context with a thread and a metadata status filter
// (limit 30), as one principal, without and with row-level security (the
// cost of binding the caller in a read-only transaction).
func BenchmarkSearch(b *testing.B) {
	for _, n := range []int{1000, 20000} {
		for _, rls := range []bool{false, true} {
			b.Run(fmt.Sprintf("entries=%d/rls=%v", n, rls), func(b *testing.B) {
				var st *Store
				if rls {
					url, schema := pgtest.Schema(b)
					var err error
					if st, err = Open(context.Background(), Options{URL: pgtest.Role(b, url, schema), Schema: schema, RLS: true}); err != nil {
						b.Fatal(err)
					}
					b.Cleanup(func() { st.Close() })
				} else {
					st = open(b, Options{})
				}
				threads := benchStore(b, st, n)
				persisttest.BenchSearch(b, st, threads)
			})
		}
	}
}

// BenchmarkFullTextSearch measures native full-text search (tsvector,
// ts_rank, limit 10) for one word that about 1 in 500 entries hold, as one
// principal.
func BenchmarkFullTextSearch(b *testing.B) {
	for _, n := range []int{1000, 20000} {
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			st := open(b, Options{})
			ctx := context.Background()
			if err := st.EnsureFullTextLanguage(ctx, "english"); err != nil {
				b.Fatal(err)
			}
			benchStore(b, st, n)
			acc := persist.Access{Principal: "alice", Groups: []string{"team"}}
			rng := rand.New(rand.NewPCG(5, 6))
			timed(b, func(int) int {
				res, err := st.FullTextSearch(ctx, acc, persist.FullTextQuery{Query: fmt.Sprintf("word%d", rng.IntN(500)),
					Mode: persist.FullTextMatch, Language: "english", Limit: 10})
				if err != nil {
					b.Fatal(err)
				}
				return len(res.Hits)
			})
		})
	}
}

// BenchmarkVectorSearch measures native vector search on pgvector (the
// PGlite server of the test script: PostgreSQL 18 compiled to WebAssembly,
// so the figures are PGlite's, not a native server's) over the entries of
// benchStore with one random 384-dimensional chunk each, limit 10, as one
// principal, with each strategy forced: the exact scan of the readable
// chunks and the HNSW walk (iterative, filtered by access).
func BenchmarkVectorSearch(b *testing.B) {
	const dim = 384
	for _, n := range []int{1000, 4000} {
		for _, c := range []struct {
			name  string
			force int
		}{{"exact", vecExact}, {"hnsw", vecHNSW}} {
			b.Run(fmt.Sprintf("entries=%d/%s", n, c.name), func(b *testing.B) {
				st := openLite(b, c.force)
				benchStore(b, st, n)
				ctx := context.Background()
				rng := rand.New(rand.NewPCG(7, 8))
				if err := st.Write(ctx, func(tx persist.Tx) error {
					for i := 1; i <= n; i++ {
						if err := tx.SetEmbeddings(ctx, persisttest.ID(i), persisttest.Embeddings(dim, randVec(rng, dim))); err != nil {
							return err
						}
					}
					return nil
				}); err != nil {
					b.Fatal(err)
				}
				if err := st.EnsureVectorTable(ctx, dim); err != nil {
					b.Fatal(err)
				}
				acc := persist.Access{Principal: "alice", Groups: []string{"team"}}
				timed(b, func(int) int {
					res, err := st.VectorSearch(ctx, acc, persist.VectorQuery{Vector: randVec(rng, dim), Limit: 10})
					if err != nil {
						b.Fatal(err)
					}
					return len(res.Hits)
				})
			})
		}
	}
}
