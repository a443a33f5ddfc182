package persisttest

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/contextd/contextd/persist"
)

// BenchStatuses are the values of the indexed metadata field "status" of
// the entries BenchFill stores.
var BenchStatuses = []string{"active", "pending", "completed", "error", "review"}

// BenchFill stores n entries in st for the stores' benchmarks, in batches
// of 5,000: n/1000 (at least 10) threads, three owners (a third of the
// entries public; carol's entries carry a read grant to group "team", as
// author_groups stores them), metadata with an indexed status, a priority
// and an agent name, and up to three tags, from fixed seeds. With words
// each text also holds one of 500 words ("word17"), for full-text search.
// It returns the number of threads.
func BenchFill(tb testing.TB, st persist.Store, n int, words bool) int {
	tb.Helper()
	ctx := context.Background()
	threads := max(n/1000, 10)
	rng := rand.New(rand.NewPCG(1, 2))
	owners := []string{"alice", "bob", "carol"}
	const batch = 5000
	for start := 0; start < n; start += batch {
		err := st.Write(ctx, func(tx persist.Tx) error {
			for i := start; i < min(start+batch, n); i++ {
				md, _ := json.Marshal(map[string]any{
					"status":     BenchStatuses[rng.IntN(len(BenchStatuses))],
					"priority":   rng.IntN(10),
					"agent_name": fmt.Sprintf("agent-%d", rng.IntN(20)),
				})
				e := NewEntry(i+1, fmt.Sprintf("thread-%03d", rng.IntN(threads)), []string{"user", "agent"}[rng.IntN(2)],
					owners[rng.IntN(len(owners))])
				e.Text = fmt.Sprintf("benchmark entry %d with some text to store", i)
				if words {
					e.Text += fmt.Sprintf(" about word%d", rng.IntN(500))
				}
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
			tb.Fatal(err)
		}
	}
	return threads
}

// Timed runs op b.N times and reports the median latency (median-ns) and
// the rows op returned on average (rows/op).
func Timed(b *testing.B, op func(i int) int) {
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

// BenchSearch measures (Timed) the page query of search_context on a
// BenchFill store of threads threads: a random thread and a random status
// (limit 30), as alice of group "team".
func BenchSearch(b *testing.B, st persist.Store, threads int) {
	ctx := context.Background()
	acc := persist.Access{Principal: "alice", Groups: []string{"team"}}
	rng := rand.New(rand.NewPCG(3, 4))
	Timed(b, func(int) int {
		res, err := st.Search(ctx, acc, persist.SearchQuery{Filter: persist.Filter{
			ThreadID: fmt.Sprintf("thread-%03d", rng.IntN(threads)),
			Meta: []persist.MetaCond{{Path: []string{"status"}, Op: "eq",
				Value: BenchStatuses[rng.IntN(len(BenchStatuses))]}},
		}, Limit: 30})
		if err != nil {
			b.Fatal(err)
		}
		return len(res.Entries)
	})
}
