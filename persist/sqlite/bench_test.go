package sqlite

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/contextd/contextd/persist"
)

var benchStatuses = []string{"active", "pending", "completed", "error", "review"}

// benchStore builds a file database of n entries over n/1000 (at least 10)
// threads, three owners (a third of the entries public; carol's entries
// carry a read grant to group "team", as author_groups stores them),
// metadata with an indexed status, a priority and an agent name, and up to
// three tags.
func benchStore(b *testing.B, n int) (*Store, int) {
	b.Helper()
	ctx := context.Background()
	s, err := Open(ctx, Options{Path: filepath.Join(b.TempDir(), "bench.db")})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	threads := max(n/1000, 10)
	rng := rand.New(rand.NewPCG(1, 2))
	owners := []string{"alice", "bob", "carol"}
	const batch = 5000
	for start := 0; start < n; start += batch {
		err := s.Write(ctx, func(tx persist.Tx) error {
			for i := start; i < min(start+batch, n); i++ {
				md, _ := json.Marshal(map[string]any{
					"status":     benchStatuses[rng.IntN(len(benchStatuses))],
					"priority":   rng.IntN(10),
					"agent_name": fmt.Sprintf("agent-%d", rng.IntN(20)),
				})
				e := entry(i+1, fmt.Sprintf("thread-%03d", rng.IntN(threads)), []string{"user", "agent"}[rng.IntN(2)],
					owners[rng.IntN(len(owners))])
				e.Text = fmt.Sprintf("benchmark entry %d with some text to store", i)
				e.Metadata = md
				if rng.IntN(3) == 0 {
					e.Visibility = "public"
				}
				for k := rng.IntN(4); k > 0; k-- {
					e.Tags = append(e.Tags, fmt.Sprintf("tag%d", rng.IntN(50)))
				}
				var grants []persist.Grant
				if e.Owner == "carol" { // author_groups: carol's entries are shared with her group
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
	return s, threads
}

// BenchmarkSearch measures the page query of search_context with a thread
// and a metadata status filter (limit 30), as seen by one principal.
func BenchmarkSearch(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			s, threads := benchStore(b, n)
			ctx := context.Background()
			acc := persist.Access{Principal: "alice", Groups: []string{"team"}}
			rng := rand.New(rand.NewPCG(3, 4))
			durs := make([]time.Duration, 0, b.N)
			rows := 0
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				q := persist.SearchQuery{
					Filter: persist.Filter{
						ThreadID: fmt.Sprintf("thread-%03d", rng.IntN(threads)),
						Meta: []persist.MetaCond{{Path: []string{"status"}, Op: "eq",
							Value: benchStatuses[rng.IntN(len(benchStatuses))]}},
					},
					Limit: 30,
				}
				t0 := time.Now()
				res, err := s.Search(ctx, acc, q)
				durs = append(durs, time.Since(t0))
				if err != nil {
					b.Fatal(err)
				}
				rows += len(res.Entries)
			}
			b.StopTimer()
			sort.Slice(durs, func(i, j int) bool { return durs[i] < durs[j] })
			b.ReportMetric(float64(durs[len(durs)/2].Nanoseconds()), "median-ns")
			b.ReportMetric(float64(rows)/float64(b.N), "rows/op")
		})
	}
}
