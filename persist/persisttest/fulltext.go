package persisttest

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/contextd/contextd/persist"
)

func (s suite) nativeFullText(t *testing.T) {
	t.Run("Modes", s.fullTextModes)
	t.Run("Access", s.fullTextAccess)
	t.Run("Ranking", s.fullTextRanking)
	t.Run("Filters", s.fullTextFilters)
	t.Run("Highlight", s.fullTextHighlight)
	t.Run("Language", s.fullTextLanguage)
	t.Run("DropTriggers", s.fullTextDropTriggers)
	t.Run("DocFreqs", s.fullTextDocFreqs)
}

// fullTextStore opens a store with a native full-text engine (skipping t
// when the backend has none) in english.
func (s suite) fullTextStore(t *testing.T) (persist.Store, persist.NativeFullText) {
	t.Helper()
	st := s.store(t)
	ft := st.Native().FullText
	if ft == nil {
		t.Skipf("backend %s has no native full-text search", st.Backend())
	}
	if info := ft.FullTextInfo(); info.Engine == "" {
		t.Fatalf("full-text info = %+v: no engine name", info)
	}
	if err := ft.EnsureFullTextLanguage(context.Background(), "english"); err != nil {
		t.Fatal(err)
	}
	return st, ft
}

// fullTextFixture stores, in thread t1 unless noted:
//
//	1 alice private "the connection was refused by the server"
//	2 alice public  "connection pooling in python"
//	3 bob private   "python scripts refuse to run"
//	4 alice private "configuration of the auth service", read grant to bob
//	5 alice private "authentication failed: connection reset" (thread t2, tag x, metadata k=v)
//	6 alice private "python python python"
//	7 alice private "zebra crossing"
//	8 alice private "zebra crossing"
func fullTextFixture(t testing.TB, st persist.Store) {
	t.Helper()
	texts := []string{
		"the connection was refused by the server",
		"connection pooling in python",
		"python scripts refuse to run",
		"configuration of the auth service",
		"authentication failed: connection reset",
		"python python python",
		"zebra crossing",
		"zebra crossing",
	}
	var es []persist.Entry
	for i, text := range texts {
		n := i + 1
		owner := "alice"
		if n == 3 {
			owner = "bob"
		}
		e := NewEntry(n, "t1", "user", owner)
		e.Text = text
		switch n {
		case 2:
			e.Visibility = "public"
		case 5:
			e.ThreadID, e.Tags, e.Metadata = "t2", []string{"x"}, meta(t, map[string]any{"k": "v"})
		}
		es = append(es, e)
	}
	Insert(t, st, es, map[string][]persist.Grant{
		ID(4): {{PrincipalType: "user", PrincipalID: "bob", Permission: "read", GrantedBy: "alice"}}})
}

// ftSearch runs q as acc and fails t on an error.
func ftSearch(t testing.TB, ft persist.NativeFullText, acc persist.Access, q persist.FullTextQuery) persist.FullTextResult {
	t.Helper()
	if q.Language == "" {
		q.Language = "english"
	}
	if q.Limit == 0 {
		q.Limit = 10
	}
	res, err := ft.FullTextSearch(context.Background(), acc, q)
	if err != nil {
		t.Fatalf("full-text search %+v: %v", q, err)
	}
	return res
}

func hitIDs(hs []persist.FullTextHit) []string {
	return mapped(hs, func(h persist.FullTextHit) string { return h.ID })
}

// checkOrder fails unless hits are score DESC, then id DESC.
func checkOrder(t testing.TB, hs []persist.FullTextHit) {
	t.Helper()
	for i := 1; i < len(hs); i++ {
		p, c := hs[i-1], hs[i]
		if p.Score < c.Score || p.Score == c.Score && p.ID < c.ID {
			t.Fatalf("hits out of order at %d: %+v", i, hs)
		}
	}
}

func (s suite) fullTextModes(t *testing.T) {
	st, ft := s.fullTextStore(t)
	fullTextFixture(t, st)
	tests := []struct {
		name, mode, query string
		want              []string // sorted
	}{
		{"match word", persist.FullTextMatch, "connection", IDs(1, 2, 5)},
		{"match case", persist.FullTextMatch, "CONNECTION", IDs(1, 2, 5)},
		{"match all words", persist.FullTextMatch, "connection python", IDs(2)},
		{"match quoted phrase", persist.FullTextMatch, `"connection pooling" python`, IDs(2)},
		{"match quoted phrase order", persist.FullTextMatch, `"pooling connection"`, nil},
		{"match hyphen", persist.FullTextMatch, "zebra-crossing", IDs(7, 8)},
		{"match operator words dropped", persist.FullTextMatch, "python AND pooling", IDs(2)},
		{"match only operator words", persist.FullTextMatch, "and or NOT", nil},
		{"match blank", persist.FullTextMatch, "   ", nil},
		{"match nothing", persist.FullTextMatch, "xylophone", nil},
		{"prefix", persist.FullTextPrefix, "auth", IDs(4, 5)},
		{"prefix star", persist.FullTextPrefix, "conn*", IDs(1, 2, 5)},
		{"prefix words", persist.FullTextPrefix, "pyth pool", IDs(2)},
		{"prefix phrase", persist.FullTextPrefix, `"zebra cross"`, IDs(7, 8)},
		{"phrase", persist.FullTextPhrase, "connection pooling", IDs(2)},
		{"phrase order", persist.FullTextPhrase, "pooling connection", nil},
		{"phrase blank", persist.FullTextPhrase, "  ", nil},
		{"boolean not", persist.FullTextBoolean, "python NOT pooling", IDs(6)},
		{"boolean or", persist.FullTextBoolean, "auth OR pooling", IDs(2, 4)},
		{"boolean and", persist.FullTextBoolean, "connection AND reset", IDs(5)},
		{"boolean parentheses", persist.FullTextBoolean, "(zebra OR auth) AND crossing", IDs(7, 8)},
		{"boolean phrase", persist.FullTextBoolean, `"connection pooling" OR zebra`, IDs(2, 7, 8)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := ftSearch(t, ft, alice, persist.FullTextQuery{Query: tc.query, Mode: tc.mode})
			if got := sorted(hitIDs(res.Hits)); !slices.Equal(got, tc.want) {
				t.Fatalf("%s %q: hits %v, want %v", tc.mode, tc.query, got, tc.want)
			}
			if res.Degraded {
				t.Fatalf("%s %q degraded", tc.mode, tc.query)
			}
			if res.Hits == nil {
				t.Fatalf("%s %q: nil hits, want an empty list", tc.mode, tc.query)
			}
			checkOrder(t, res.Hits)
		})
	}
	// A malformed boolean query runs as the match query of its text.
	for _, q := range []string{"(python AND", `"zebra`, "connection AND (", "NOT"} {
		res := ftSearch(t, ft, alice, persist.FullTextQuery{Query: q, Mode: persist.FullTextBoolean})
		want := ftSearch(t, ft, alice, persist.FullTextQuery{Query: q, Mode: persist.FullTextMatch})
		if !res.Degraded || !slices.Equal(hitIDs(res.Hits), hitIDs(want.Hits)) {
			t.Fatalf("boolean %q: degraded %v hits %v, want degraded with the match hits %v", q, res.Degraded, hitIDs(res.Hits), hitIDs(want.Hits))
		}
	}
}

// fullTextAccess: hidden entries are never hits and never take a slot.
func (s suite) fullTextAccess(t *testing.T) {
	st, ft := s.fullTextStore(t)
	fullTextFixture(t, st)
	tests := []struct {
		acc   persist.Access
		query string
		want  []string
	}{
		{alice, "python", IDs(2, 6)},
		{bob, "python", IDs(2, 3)},
		{bobTeam, "python", IDs(2, 3)},
		{dave, "python", IDs(2)},
		{bob, "auth", IDs(4)},
		{dave, "auth", nil},
		{carol, "zebra", nil},
		{bob, "refused", IDs(3)}, // stemmed: "refuse"
	}
	for _, tc := range tests {
		res := ftSearch(t, ft, tc.acc, persist.FullTextQuery{Query: tc.query, Mode: persist.FullTextMatch})
		if got := sorted(hitIDs(res.Hits)); !slices.Equal(got, tc.want) {
			t.Fatalf("%s %q: hits %v, want %v", tc.acc.Principal, tc.query, got, tc.want)
		}
		// Limit 1 is the best readable hit, not a hidden one.
		one := ftSearch(t, ft, tc.acc, persist.FullTextQuery{Query: tc.query, Mode: persist.FullTextMatch, Limit: 1})
		if len(one.Hits) != min(1, len(tc.want)) || len(one.Hits) == 1 && one.Hits[0].ID != res.Hits[0].ID {
			t.Fatalf("%s %q limit 1: %v, full answer %v", tc.acc.Principal, tc.query, hitIDs(one.Hits), hitIDs(res.Hits))
		}
	}
}

// fullTextRanking: higher scores are better; equal texts tie by id DESC;
// a limit keeps the best.
func (s suite) fullTextRanking(t *testing.T) {
	st, ft := s.fullTextStore(t)
	fullTextFixture(t, st)
	res := ftSearch(t, ft, alice, persist.FullTextQuery{Query: "python", Mode: persist.FullTextMatch})
	if len(res.Hits) != 2 || res.Hits[0].ID != ID(6) || !(res.Hits[0].Score > res.Hits[1].Score) {
		t.Fatalf("python: %+v, want entry 6 (three times the word) first with a higher score", res.Hits)
	}
	res = ftSearch(t, ft, alice, persist.FullTextQuery{Query: "zebra", Mode: persist.FullTextMatch})
	if !slices.Equal(hitIDs(res.Hits), IDs(8, 7)) || res.Hits[0].Score != res.Hits[1].Score {
		t.Fatalf("zebra: %+v, want 8 then 7 with equal scores", res.Hits)
	}
	all := ftSearch(t, ft, alice, persist.FullTextQuery{Query: "connection", Mode: persist.FullTextMatch})
	checkOrder(t, all.Hits)
	two := ftSearch(t, ft, alice, persist.FullTextQuery{Query: "connection", Mode: persist.FullTextMatch, Limit: 2})
	if len(all.Hits) != 3 || !slices.Equal(hitIDs(two.Hits), hitIDs(all.Hits[:2])) {
		t.Fatalf("limit 2 = %v, all = %v", hitIDs(two.Hits), hitIDs(all.Hits))
	}
	none, err := ft.FullTextSearch(context.Background(), alice, persist.FullTextQuery{Query: "connection", Mode: persist.FullTextMatch, Language: "english"})
	if err != nil || len(none.Hits) != 0 {
		t.Fatalf("limit 0 = %v, %v", none.Hits, err)
	}
}

func (s suite) fullTextFilters(t *testing.T) {
	st, ft := s.fullTextStore(t)
	fullTextFixture(t, st)
	tests := []struct {
		name string
		f    persist.Filter
		want []string
	}{
		{"thread", persist.Filter{ThreadID: "t2"}, IDs(5)},
		{"tags", persist.Filter{Tags: []string{"x", "y"}}, IDs(5)},
		{"ids", persist.Filter{IDs: IDs(1, 2, 3)}, IDs(1, 2)},
		{"ids empty", persist.Filter{IDs: []string{}}, nil},
		{"dates", persist.Filter{Start: tp(At(2)), End: tp(At(5))}, IDs(2, 5)},
		{"metadata", persist.Filter{Meta: []persist.MetaCond{{Path: []string{"k"}, Op: "eq", Value: "v"}}}, IDs(5)},
		{"source", persist.Filter{Source: "agent"}, nil},
		{"before", persist.Filter{Before: &persist.Position{CreatedAt: At(2), ID: ID(2)}}, IDs(1)},
	}
	for _, tc := range tests {
		res := ftSearch(t, ft, alice, persist.FullTextQuery{Filter: tc.f, Query: "connection", Mode: persist.FullTextMatch})
		if got := sorted(hitIDs(res.Hits)); !slices.Equal(got, tc.want) {
			t.Fatalf("%s: hits %v, want %v", tc.name, got, tc.want)
		}
	}
}

// fullTextHighlight: with Highlight, an engine that highlights returns the
// whole text with <mark>…</mark> around the matches; without, nothing.
func (s suite) fullTextHighlight(t *testing.T) {
	st, ft := s.fullTextStore(t)
	fullTextFixture(t, st)
	res := ftSearch(t, ft, alice, persist.FullTextQuery{Query: "pooling", Mode: persist.FullTextMatch})
	if len(res.Hits) != 1 || res.Hits[0].Highlighted != "" {
		t.Fatalf("without Highlight: %+v", res.Hits)
	}
	if !ft.FullTextInfo().Highlights {
		t.Skipf("engine %s does not highlight", ft.FullTextInfo().Engine)
	}
	res = ftSearch(t, ft, alice, persist.FullTextQuery{Query: "pooling", Mode: persist.FullTextMatch, Highlight: true})
	if len(res.Hits) != 1 || res.Hits[0].Highlighted != "connection <mark>pooling</mark> in python" {
		t.Fatalf("highlighted: %+v", res.Hits)
	}
	res = ftSearch(t, ft, alice, persist.FullTextQuery{Query: "python", Mode: persist.FullTextMatch, Highlight: true, Filter: persist.Filter{IDs: IDs(6)}})
	if len(res.Hits) != 1 || strings.Count(res.Hits[0].Highlighted, "<mark>") != 3 ||
		strings.NewReplacer("<mark>", "", "</mark>", "").Replace(res.Hits[0].Highlighted) != "python python python" {
		t.Fatalf("highlighted: %+v", res.Hits)
	}
}

// fullTextLanguage: english stems ("run" finds "running"); the word
// itself is found in any language, and switching back and forth rebuilds.
func (s suite) fullTextLanguage(t *testing.T) {
	ctx := context.Background()
	st, ft := s.fullTextStore(t)
	e := NewEntry(1, "t", "user", "alice")
	e.Text, e.Visibility = "the runners were running", "public"
	Insert(t, st, []persist.Entry{e}, nil)
	hits := func(q, lang string) int {
		t.Helper()
		return len(ftSearch(t, ft, bob, persist.FullTextQuery{Query: q, Mode: persist.FullTextMatch, Language: lang}).Hits)
	}
	for _, lang := range []string{"english", "german", "german", "english"} {
		if err := ft.EnsureFullTextLanguage(ctx, lang); err != nil {
			t.Fatal(err)
		}
		if got := hits("running", lang); got != 1 {
			t.Fatalf("%s: %q found %d, want 1", lang, "running", got)
		}
		if lang == "english" {
			if got := hits("run", lang); got != 1 {
				t.Fatalf("%s: %q found %d, want 1", lang, "run", got)
			}
		}
	}
}

// fullTextDropTriggers: after DropFullTextTriggers, EnsureFullTextLanguage
// brings the index back up to date with every write made meanwhile.
func (s suite) fullTextDropTriggers(t *testing.T) {
	ctx := context.Background()
	st, ft := s.fullTextStore(t)
	fullTextFixture(t, st)
	for i := 0; i < 2; i++ { // dropping twice is fine
		if err := ft.DropFullTextTriggers(ctx); err != nil {
			t.Fatal(err)
		}
	}
	e := NewEntry(9, "t1", "user", "alice")
	e.Text = "a kiwi arrived"
	Insert(t, st, []persist.Entry{e}, nil)
	text := "now about mangos"
	write(t, st, func(ctx context.Context, tx persist.Tx) error {
		_, err := tx.Update(ctx, ID(2), persist.Update{Text: &text})
		return err
	})
	deleteIDs(t, st, ID(6))
	if err := ft.EnsureFullTextLanguage(ctx, "english"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		query string
		want  []string
	}{{"kiwi", IDs(9)}, {"mangos", IDs(2)}, {"pooling", nil}, {"python", nil}, {"connection", IDs(1, 5)}} {
		res := ftSearch(t, ft, alice, persist.FullTextQuery{Query: tc.query, Mode: persist.FullTextMatch})
		if got := sorted(hitIDs(res.Hits)); !slices.Equal(got, tc.want) {
			t.Fatalf("%q after the triggers came back: %v, want %v", tc.query, got, tc.want)
		}
	}
	// And the index is kept up to date again.
	e = NewEntry(10, "t1", "user", "alice")
	e.Text = "another kiwi"
	Insert(t, st, []persist.Entry{e}, nil)
	if got := sorted(hitIDs(ftSearch(t, ft, alice, persist.FullTextQuery{Query: "kiwi", Mode: persist.FullTextMatch}).Hits)); !slices.Equal(got, IDs(9, 10)) {
		t.Fatalf("kiwi: %v", got)
	}
}

// fullTextDocFreqs: per word, the number of entries holding it (stemmed as
// the index stems), and the number of entries, whoever can read them.
func (s suite) fullTextDocFreqs(t *testing.T) {
	st, ft := s.fullTextStore(t)
	fullTextFixture(t, st)
	df, n, err := ft.DocFreqs(context.Background(), []string{"connection", "python", "zebra", "xylophone", "refusing"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{3, 3, 2, 0, 2}; n != 8 || !slices.Equal(df, want) {
		t.Fatalf("doc freqs = %v of %d, want %v of 8", df, n, want)
	}
	if df, n, err := ft.DocFreqs(context.Background(), nil); err != nil || len(df) != 0 || n != 8 {
		t.Fatalf("doc freqs of no words = %v of %d, %v", df, n, err)
	}
}
