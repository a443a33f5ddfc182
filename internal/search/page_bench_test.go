package search

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/contextd/contextd/internal/follow"
	"github.com/contextd/contextd/internal/testtier"
	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/sqlite"
)

// pageBench is a database of n entries shaped as contextd bench's (8
// threads, source alternating, two tags of 20, status active/done with
// blocked on every 1,000th, priority 0-9, unique seq), with its
// in-process full-text index, and the native backend's FullText with
// search_context's own catalog (pagecat.go).
type pageBench struct {
	st  persist.Store
	ft  *FullText
	nat *FullText
	mid time.Time
}

func openPageBench(b *testing.B, n int) *pageBench {
	ctx := context.Background()
	st := pageBenchStore(b, b.TempDir(), n)
	ft, err := OpenFullText(ctx, st, follow.NewFeed(st), FullTextOptions{Progress: io.Discard})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = ft.Close() })
	nat, err := OpenFullText(ctx, st, follow.NewFeed(st), FullTextOptions{Backend: Native, Progress: io.Discard})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = nat.Close() })
	waitPages(b, nat)
	return &pageBench{st: st, ft: ft, nat: nat, mid: t0.Add(time.Duration(n/2) * time.Millisecond)}
}

// pageBenchStore is a SQLite database in dir of n entries shaped as
// contextd bench's.
func pageBenchStore(b *testing.B, dir string, n int) persist.Store {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, sqlite.Options{Path: filepath.Join(dir, "ctx.db")})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = st.Close() })
	for lo := 0; lo < n; lo += 1000 {
		err := st.Write(ctx, func(tx persist.Tx) error {
			for i := lo; i < min(n, lo+1000); i++ {
				status := []string{"active", "done"}[i%2]
				if i%1000 == 999 {
					status = "blocked"
				}
				m, _ := json.Marshal(map[string]any{"status": status, "priority": i % 10, "seq": i})
				e := persist.Entry{ID: fmt.Sprintf("%032x", i), ThreadID: fmt.Sprintf("bench-%d", i%8),
					Source: []string{"agent", "user"}[i%2], ContentType: "text", Text: fmt.Sprintf("entry %d", i),
					Owner: "local", Visibility: "private", CreatedAt: t0.Add(time.Duration(i) * time.Millisecond),
					UpdatedAt: t0, Metadata: m, Tags: []string{"bench", fmt.Sprintf("topic-%d", i%20)}}
				if err := tx.Insert(ctx, &e, nil); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return st
}

func metaEq(key string, v any) persist.MetaCond {
	return persist.MetaCond{Path: []string{key}, Op: "eq", Value: v}
}

// BenchmarkPage is search_context's page of 30 (the default) (catalog choice plus SQL
// hydration: "catalog" with the in-process backend, "native" with
// SEARCH_BACKEND=native) against the whole query in SQL ("sql"), per
// filter of contextd bench, at 10,000 and 100,000 entries. The database
// is built once per size (100,000 entries take a minute or two).
func BenchmarkPage(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) { benchPage(b, n) })
	}
}

func benchPage(b *testing.B, n int) {
	{
		pb := openPageBench(b, n)
		old, rare := persist.MetaCond{Path: []string{"seq"}, Op: "eq", Value: int64(n / 3)}, metaEq("status", "blocked")
		for _, tc := range []struct {
			name string
			f    persist.Filter
		}{
			{"no_filter", persist.Filter{}},
			{"thread", persist.Filter{ThreadID: "bench-3"}},
			{"tag", persist.Filter{Tags: []string{"topic-7"}}},
			{"status=active", persist.Filter{Meta: []persist.MetaCond{metaEq("status", "active")}}},
			{"status=blocked", persist.Filter{Meta: []persist.MetaCond{rare}}},
			{"status_starts_with_bl", persist.Filter{Meta: []persist.MetaCond{{Path: []string{"status"}, Op: "starts_with", Value: "bl"}}}},
			{"priority_gte_5", persist.Filter{Meta: []persist.MetaCond{{Path: []string{"priority"}, Op: "gte", Value: int64(5)}}}},
			{"seq_eq", persist.Filter{Meta: []persist.MetaCond{old}}},
			{"dates_newer_half", persist.Filter{Start: &pb.mid}},
			{"thread+status=active", persist.Filter{ThreadID: "bench-3", Meta: []persist.MetaCond{metaEq("status", "active")}}},
			{"combined", persist.Filter{ThreadID: "bench-7", Tags: []string{"topic-7", "topic-0"}, Start: &t0, Meta: []persist.MetaCond{rare}}},
		} {
			q := persist.SearchQuery{Filter: tc.f, Limit: 30}
			acc := persist.Access{Principal: "local"}
			for _, way := range []string{"catalog", "native", "sql"} {
				b.Run(tc.name+"/"+way, func(b *testing.B) {
					ctx := context.Background()
					b.ReportAllocs()
					var got int
					stop := testtier.CPU(b)
					for b.Loop() {
						var res persist.SearchResult
						var err error
						switch way {
						case "catalog":
							res, err = pb.ft.Page(ctx, acc, q)
						case "native":
							res, err = pb.nat.Page(ctx, acc, q)
						default:
							res, err = pb.st.Search(ctx, acc, q)
						}
						if err != nil {
							b.Fatal(err)
						}
						got = len(res.Entries)
					}
					stop()
					b.ReportMetric(float64(got), "entries")
				})
			}
		}
	}
}
