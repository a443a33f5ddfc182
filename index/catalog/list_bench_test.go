package catalog

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/contextd/contextd/internal/testtier"
)

// benchMeta is the i-th entry's metadata as contextd bench stores it:
// status (an indexed field) alternating active/done with blocked on every
// 1,000th entry, priority 0-9 and a unique seq (not indexed).
func benchMeta(i int) []byte {
	status := []string{"active", "done"}[i%2]
	if i%1000 == 999 {
		status = "blocked"
	}
	return fmt.Appendf(nil, `{"priority":%d,"seq":%d,"status":%q}`, i%10, i, status)
}

var listCorpora sync.Map // n -> *Catalog

// listCorpus is a catalog of n bench-shaped entries (scanned, with
// benchMeta), built once per size.
func listCorpus(n int) *Catalog {
	if c, ok := listCorpora.Load(n); ok {
		return c.(*Catalog)
	}
	c := NewMeta()
	for i := range n {
		e := scanned(i)
		e.Metadata = benchMeta(i)
		c.Put(e)
	}
	listCorpora.Store(n, c)
	return c
}

// listCases are the filters of contextd bench's search_context rows.
func listCases(n int) []struct {
	name string
	q    Query
	meta []MetaCond
} {
	mid := time.UnixMicro(int64(n / 2))
	return []struct {
		name string
		q    Query
		meta []MetaCond
	}{
		{"no filter", Query{}, nil},
		{"thread", Query{ThreadID: "bench-3"}, nil},
		{"source", Query{Source: "user"}, nil},
		{"tag", Query{Tags: []string{"topic-7"}}, nil},
		{"content_type", Query{ContentType: "text"}, nil},
		{"status=active", Query{}, []MetaCond{{Path: []string{"status"}, Op: "eq", Value: "active"}}},
		{"status=blocked", Query{}, []MetaCond{{Path: []string{"status"}, Op: "eq", Value: "blocked"}}},
		{"status starts_with bl", Query{}, []MetaCond{{Path: []string{"status"}, Op: "starts_with", Value: "bl"}}},
		{"priority gte 5", Query{}, []MetaCond{{Path: []string{"priority"}, Op: "gte", Value: int64(5)}}},
		{"seq eq", Query{}, []MetaCond{{Path: []string{"seq"}, Op: "eq", Value: int64(n / 3)}}},
		{"seq in", Query{}, []MetaCond{{Path: []string{"seq"}, Op: "in", Values: []any{int64(1), int64(n / 3)}}}},
		{"status contains", Query{}, []MetaCond{{Path: []string{"status"}, Op: "contains", Value: "ocke"}}},
		{"dates newer half", Query{Start: &mid}, nil},
		{"thread+status=active", Query{ThreadID: "bench-3"}, []MetaCond{{Path: []string{"status"}, Op: "eq", Value: "active"}}},
		{"combined", Query{ThreadID: "bench-7", Tags: []string{"topic-7", "topic-0"}, Start: &mid},
			[]MetaCond{{Path: []string{"status"}, Op: "eq", Value: "blocked"}}},
		{"not_exists", Query{}, []MetaCond{{Path: []string{"owner"}, Op: "not_exists"}}},
	}
}

// BenchmarkList is search_context's page (50 entries, newest first) from
// the catalog, per bench filter, at 10,000 and 100,000 entries.
func BenchmarkList(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		c := listCorpus(n)
		for _, tc := range listCases(n) {
			b.Run(fmt.Sprintf("n=%d/%s", n, tc.name), func(b *testing.B) {
				tc.q.Principal = "local"
				b.ReportAllocs()
				var got int
				stop := testtier.CPU(b)
				for b.Loop() {
					ids, err := c.List(tc.q, tc.meta, 0, 50)
					if err != nil {
						b.Fatal(err)
					}
					got = len(ids)
				}
				stop()
				b.ReportMetric(float64(got), "ids")
			})
		}
	}
}
