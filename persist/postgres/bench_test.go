package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/persisttest"
	"github.com/contextd/contextd/persist/postgres/pgtest"
)

var benchStatuses = []string{"active", "pending", "completed", "error", "review"}

// benchStore fills st with n entries as persist/sqlite's benchmark does:
// n/1000 (at least 10) threads, three owners (a third public; carol's
// entries granted to group "team"), metadata with an indexed status, a
// priority and an agent name, up to three tags. Fixed seeds.
func benchStore(b *testing.B, st *Store, n int) int {
	b.Helper()
	ctx := context.Background()
	threads := max(n/1000, 10)
	rng := rand.New(rand.NewPCG(1, 2))
	owners := []string{"alice", "bob", "carol"}
	const batch = 5000
	for start := 0; start < n; start += batch {
		err := st.Write(ctx, func(tx persist.Tx) error {
			for i := start; i < min(start+batch, n); i++ {
				md, _ := json.Marshal(map[string]any{
					"status":     benchStatuses[rng.IntN(len(benchStatuses))],
					"priority":   rng.IntN(10),
					"agent_name": fmt.Sprintf("agent-%d", rng.IntN(20)),
				})
				e := persisttest.NewEntry(i+1, fmt.Sprintf("thread-%03d", rng.IntN(threads)), []string{"user", "agent"}[rng.IntN(2)],
					owners[rng.IntN(len(owners))])
				e.Text = fmt.Sprintf("benchmark entry %d with some text to store about word%d", i, rng.IntN(500))
				e.Metadata = md
				if rng.IntN(3) == 0 {
					e.Visibility = "public"
				}
				for k := rng.IntN(4); k > 0; k-- {
					e.Tags = append(e.Tags, fmt.Sprintf("tag%d", rng.IntN(50)))
				}
				var grants []persist.Grant
				if e.Owner == "carol" {
					grants = []persist.Grant{{PrincipalType: "group", PrincipalID: "team", Permission: "read", GrantedBy: "carol"}}
				}
				if err := tx.Insert(ctx, &e, grants); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	if _, err := st.pool.Exec(ctx, `ANALYZE`); err != nil {
		b.Fatal(err)
	}
	return threads
}

// timed runs op b.N times and reports the median latency.
func timed(b *testing.B, op func(i int) int) {
	durs := make([]time.Duration, 0, b.N)
	rows := 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		rows += op(i)
		durs = append(durs, time.Since(t0))
	}
	b.StopTimer()
	sort.Slice(durs, func(i, j int) bool { return durs[i] < durs[j] })
	b.ReportMetric(float64(durs[len(durs)/2].Nanoseconds()), "median-ns")
	b.ReportMetric(float64(rows)/float64(b.N), "rows/op")
}

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
				ctx := context.Background()
				acc := persist.Access{Principal: "alice", Groups: []string{"team"}}
				rng := rand.New(rand.NewPCG(3, 4))
				timed(b, func(int) int {
					res, err := st.Search(ctx, acc, persist.SearchQuery{Filter: persist.Filter{
						ThreadID: fmt.Sprintf("thread-%03d", rng.IntN(threads)),
						Meta: []persist.MetaCond{{Path: []string{"status"}, Op: "eq",
							Value: benchStatuses[rng.IntN(len(benchStatuses))]}},
					}, Limit: 30})
					if err != nil {
						b.Fatal(err)
					}
					return len(res.Entries)
				})
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
