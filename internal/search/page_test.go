package search

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/contextd/contextd/internal/follow"
	"github.com/contextd/contextd/internal/testtier"
	"github.com/contextd/contextd/persist"
)

// pageWorld is a small random world whose values overlap often: few
// principals, threads, tags and metadata values, mixed case, mixed JSON
// types under one key, equal creation times (the id breaks the tie).
type pageWorld struct {
	r     *rand.Rand
	users []string
	vals  []any // metadata values drawn for any key
}

func newPageWorld(seed uint64) *pageWorld {
	return &pageWorld{
		r:     rand.New(rand.NewPCG(seed, seed+1)),
		users: []string{"ann", "bob", "cy"},
		vals: []any{"active", "Active", "done", "blocked", "bl", "BLOCKED x", "", "ä-Ü", "a<b&c", "9",
			0, 1, 5, -3, 2.5, 5.0, 1e15, 9007199254740993, true, false, nil,
			[]any{"a", "B", 1, true, 2.5}, []any{}, map[string]any{"theme": "dark", "n": 3}},
	}
}

func (w *pageWorld) pick(s []string) string { return s[w.r.IntN(len(s))] }
func (w *pageWorld) val() any               { return w.vals[w.r.IntN(len(w.vals))] }

// meta is a random metadata object (or none).
func (w *pageWorld) meta() json.RawMessage {
	if w.r.IntN(8) == 0 {
		return nil
	}
	m := map[string]any{}
	for _, k := range []string{"status", "priority", "seq", "user"} {
		if w.r.IntN(4) != 0 {
			m[k] = w.val()
		}
	}
	b, _ := json.Marshal(m)
	return b
}

func (w *pageWorld) entry(n int) (persist.Entry, []persist.Grant) {
	e := persist.Entry{
		ID: fmt.Sprintf("%032x", n), ThreadID: fmt.Sprintf("t%d", w.r.IntN(3)), Source: []string{"user", "agent"}[w.r.IntN(2)],
		ContentType: []string{"text", "multimodal"}[w.r.IntN(2)], Text: fmt.Sprintf("entry %d", n),
		Owner: w.pick(w.users), Visibility: []string{"private", "public"}[w.r.IntN(2)],
		CreatedAt: t0.Add(time.Duration(w.r.IntN(40)) * time.Second), UpdatedAt: t0, Metadata: w.meta(),
	}
	for range w.r.IntN(3) {
		e.Tags = append(e.Tags, fmt.Sprintf("tag%d", w.r.IntN(4)))
	}
	slices.Sort(e.Tags)
	e.Tags = slices.Compact(e.Tags)
	var gs []persist.Grant
	if w.r.IntN(3) == 0 {
		gs = append(gs, persist.Grant{PrincipalType: "user", PrincipalID: w.pick(w.users), Permission: "read", GrantedBy: e.Owner})
	}
	if w.r.IntN(4) == 0 {
		gs = append(gs, persist.Grant{PrincipalType: "group", PrincipalID: "g1", Permission: "read", GrantedBy: e.Owner})
	}
	return e, gs
}

var pageOps = []string{"eq", "ne", "gt", "gte", "lt", "lte", "in", "not_in", "exists", "not_exists",
	"is_null", "is_not_null", "contains", "starts_with", "ends_with", "array_contains"}

// cond is a random metadata condition on a random key.
func (w *pageWorld) cond() persist.MetaCond {
	path := []string{[]string{"status", "priority", "seq", "missing"}[w.r.IntN(4)]}
	if w.r.IntN(6) == 0 {
		path = []string{"user", []string{"theme", "n"}[w.r.IntN(2)]}
	}
	c := persist.MetaCond{Path: path, Op: pageOps[w.r.IntN(len(pageOps))], CaseSensitive: w.r.IntN(2) == 0}
	scalar := func() any {
		for {
			switch v := w.val().(type) {
			case int:
				return int64(v)
			case string, bool, float64:
				return v
			}
		}
	}
	switch c.Op {
	case "in", "not_in":
		for range 1 + w.r.IntN(3) {
			c.Values = append(c.Values, scalar())
		}
	case "exists", "not_exists", "is_null", "is_not_null":
	case "contains", "starts_with", "ends_with":
		c.Value = []string{"bl", "B", "", "ive", "x", "Ü", "<"}[w.r.IntN(7)]
	default:
		c.Value = scalar()
	}
	return c
}

// query is a random caller, filter and page.
func (w *pageWorld) query() (persist.Access, persist.SearchQuery) {
	acc := persist.Access{Principal: w.pick(w.users)}
	if w.r.IntN(3) == 0 {
		acc.Groups = []string{"g1"}
	}
	var q persist.SearchQuery
	if w.r.IntN(3) == 0 {
		q.ThreadID = fmt.Sprintf("t%d", w.r.IntN(4))
	}
	if w.r.IntN(4) == 0 {
		q.Source = []string{"user", "agent"}[w.r.IntN(2)]
	}
	if w.r.IntN(4) == 0 {
		q.ContentType = []string{"text", "multimodal"}[w.r.IntN(2)]
	}
	if w.r.IntN(4) == 0 {
		q.Tags = []string{fmt.Sprintf("tag%d", w.r.IntN(5))}
	}
	if w.r.IntN(4) == 0 {
		s := t0.Add(time.Duration(w.r.IntN(40))*time.Second + 300*time.Nanosecond)
		q.Start = &s
	}
	if w.r.IntN(4) == 0 {
		e := t0.Add(time.Duration(w.r.IntN(40)) * time.Second)
		q.End = &e
	}
	for range w.r.IntN(3) {
		q.Meta = append(q.Meta, w.cond())
	}
	q.Limit = 1 + w.r.IntN(30)
	if w.r.IntN(3) == 0 {
		q.Offset = w.r.IntN(20)
	}
	if w.r.IntN(4) == 0 {
		// Keyset paging as grep_context scans (creation times collide:
		// the id decides), and a size bound cutting pages short.
		q.Before = &persist.Position{CreatedAt: t0.Add(time.Duration(w.r.IntN(40)) * time.Second), ID: fmt.Sprintf("%032x", w.r.IntN(320))}
	}
	if w.r.IntN(4) == 0 {
		q.MaxTextBytes = 1 + w.r.IntN(60)
	}
	return acc, q
}

func entryIDs(es []persist.Entry) []string {
	out := make([]string, len(es))
	for i := range es {
		out[i] = es[i].ID
	}
	return out
}

// TestPageOracle: search_context served from a catalog returns exactly
// what SQL returns (same ids, same order, same cut) for random callers,
// structural filters, every metadata operator, pages, keyset positions
// and size bounds, over random entries, also
// after random updates (metadata, tags, visibility), grants and deletes,
// and after a restart (the in-process backend loads its catalog from its
// snapshot or SQL beside the index snapshot; the native backend and
// ENABLE_FTS=false load search_context's catalog from pagecat.snap).
func TestPageOracle(t *testing.T) {
	for _, mode := range []FullTextOptions{{}, {Backend: Native}, {Disable: true}} {
		name := cmp.Or(mode.Backend, InProcess)
		if mode.Disable {
			name = "fts-off"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel() // each mode has its own store and index folder
			testPageOracle(t, mode)
		})
	}
}

func testPageOracle(t *testing.T, mode FullTextOptions) {
	ctx := context.Background()
	dir := t.TempDir()
	st := testStore(t, dir)
	w := newPageWorld(7)
	const n = 300
	w.insert(t, st, 0, n)
	open := func() *FullText {
		o := mode
		o.Dir, o.Progress = dir+"/idx", &testWriter{t}
		ft, err := OpenFullText(ctx, st, follow.NewFeed(st), o)
		if err != nil {
			t.Fatal(err)
		}
		waitPages(t, ft)
		return ft
	}
	ft := open()
	w.check(t, st, ft, "fresh", 600)
	for round := range 3 {
		w.churn(t, st, n, 60)
		w.check(t, st, ft, fmt.Sprintf("after writes %d", round), 200)
	}
	if err := ft.Close(); err != nil {
		t.Fatal(err)
	}
	ft = open() // from the snapshots
	defer ft.Close()
	w.check(t, st, ft, "restarted", 300)
}

// insert stores entries [from, to) of the world.
func (w *pageWorld) insert(t *testing.T, st persist.Store, from, to int) {
	t.Helper()
	ctx := context.Background()
	err := st.Write(ctx, func(tx persist.Tx) error {
		for i := from; i < to; i++ {
			e, gs := w.entry(i)
			if err := tx.Insert(ctx, &e, gs); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// churn makes k random writes to the first n entries: deletes, grants,
// and updates of metadata, tags and visibility.
func (w *pageWorld) churn(t *testing.T, st persist.Store, n, k int) {
	t.Helper()
	ctx := context.Background()
	err := st.Write(ctx, func(tx persist.Tx) error {
		for range k {
			id := fmt.Sprintf("%032x", w.r.IntN(n))
			s, found, err := tx.State(ctx, persist.Access{}, id)
			if err != nil || !found {
				continue
			}
			switch w.r.IntN(4) {
			case 0:
				_, err = tx.Delete(ctx, []string{id})
			case 1:
				_, err = tx.Grant(ctx, id, persist.Grant{PrincipalType: "user", PrincipalID: w.pick(w.users), Permission: "read", GrantedBy: s.Owner})
			default:
				m, tags := w.meta(), []string{fmt.Sprintf("tag%d", w.r.IntN(4))}
				vis := []string{"private", "public"}[w.r.IntN(2)]
				_, err = tx.Update(ctx, id, persist.Update{Metadata: &m, Tags: &tags, Visibility: &vis,
					BumpVersion: true, UpdatedAt: t0, ExpectVersion: s.Version})
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// check runs random queries through ft.Page and SQL and fails on the
// first difference; at least a quarter must match something.
//
// Under -race it runs a quarter of the queries (testtier.RaceShare): each
// is a SQL search and a catalog page, sequential, and the page tests'
// 1,000s of them took 150 s of the race pass; the plain pass runs all.
func (w *pageWorld) check(t *testing.T, st persist.Store, ft *FullText, round string, queries int) {
	t.Helper()
	ctx := context.Background()
	queries = testtier.RaceShare(queries)
	served := 0
	for i := range queries {
		acc, q := w.query()
		want, sqlErr := st.Search(ctx, acc, q)
		got, err := ft.Page(ctx, acc, q)
		if sqlErr != nil {
			// A condition validation refuses (a bool for lte): the
			// catalog defers to SQL, which refuses it.
			if err == nil {
				t.Fatalf("%s query %d: SQL refused (%v), the catalog answered", round, i, sqlErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s query %d: page: %v", round, i, err)
		}
		if g, wa := entryIDs(got.Entries), entryIDs(want.Entries); !slices.Equal(g, wa) || got.Cut != want.Cut {
			t.Fatalf("%s query %d (%s %+v, meta %+v, max bytes %d): catalog %v cut %v, SQL %v cut %v",
				round, i, acc.Principal, q.Filter, q.Meta, q.MaxTextBytes, g, got.Cut, wa, want.Cut)
		}
		if len(want.Entries) > 0 {
			served++
		}
	}
	if served < queries/4 {
		t.Fatalf("%s: only %d of %d queries matched anything: the oracle is too weak", round, served, queries)
	}
}

type testWriter struct{ t *testing.T }

func (w *testWriter) Write(p []byte) (int, error) { w.t.Log(string(p)); return len(p), nil }
