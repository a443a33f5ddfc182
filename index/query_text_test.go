package index

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/contextd/contextd/persist"
)

func TestNeutral(t *testing.T) {
	ix := openTest(t, Options{})
	for s, want := range map[string]bool{
		"the": true, "The": true, "to be or not to be": true, "...": true, "": true,
		"the deploy": false, "fmt.Println": false, "résumé": false, "s": false,
	} {
		if got := ix.Neutral(s); got != want {
			t.Errorf("Neutral(%q) = %v, want %v", s, got, want)
		}
	}
	simple := openTest(t, Options{Language: "simple"})
	if simple.Neutral("the") {
		t.Error("simple has no stop words, the is not neutral")
	}
}

// TestNativeQuery: the query FTS5 is sent drops neutral operands as the
// in-process query builder does, and is otherwise the same query.
func TestNativeQuery(t *testing.T) {
	stop, err := StopWords("english")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ in, mode, want, wantMode string }{
		{"fmt.Println yaml", "match", "fmt.Println yaml", "match"},
		{"the deploy", "match", `"deploy"`, "match"},
		{`"the end" of story`, "match", `"the end" "story"`, "match"},
		{"the of", "match", "", "match"},
		{"the", "prefix", "the", "prefix"},
		{"to be or not to be", "phrase", "to be or not to be", "phrase"},
		{"the AND deploy", "boolean", `"deploy"`, "boolean"},
		{`"what" OR "is" OR "lift"`, "boolean", `"lift"`, "boolean"},
		{"(postgres OR sqlite) NOT pgbouncer", "boolean", `(("postgres" OR "sqlite") NOT "pgbouncer")`, "boolean"},
		{"the AND NOT x", "boolean", `"x"`, "match"}, // AND NOT is a syntax error: the match query
		{"the* AND x", "boolean", `("the"* AND "x")`, "boolean"},
		{"a NOT the", "boolean", "", "boolean"},
		{"deploy NOT the", "boolean", `"deploy"`, "boolean"},
		{"fmt.Println AND yaml", "boolean", "fmt.Println AND yaml", "match"}, // '.' is a syntax error
		{`say "hi"`, "boolean", `("say" AND "hi")`, "boolean"},
	} {
		got, mode := NativeQuery(c.in, c.mode, "english", stop)
		if got != c.want || mode != c.wantMode {
			t.Errorf("NativeQuery(%q, %s) = %q, %s; want %q, %s", c.in, c.mode, got, mode, c.want, c.wantMode)
		}
	}
}

func FuzzNativeQuery(f *testing.F) {
	for _, s := range []string{"the AND x", `"a""b" OR c*`, "(((x", "NOT the", "fmt.Println", "\xff"} {
		f.Add(s)
	}
	stop, err := StopWords("english")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, q string) {
		out, mode := NativeQuery(q, persist.FullTextBoolean, "english", stop)
		if mode == persist.FullTextBoolean && out != "" {
			if _, err := ParseBoolean(out); err != nil {
				t.Fatalf("%q rewrote to %q, which does not parse: %v", q, out, err)
			}
		}
		NativeQuery(q, persist.FullTextMatch, "english", stop)
	})
}

// TestPrefixInPhrase: a prefix after other words matches them adjacent,
// as FTS5's "alpha wor"* does, however many terms the prefix starts.
func TestPrefixInPhrase(t *testing.T) {
	ctx := context.Background()
	for _, n := range []int{3, 600} {
		ix := openTest(t, Options{})
		var docs []Doc
		for i := range n {
			docs = append(docs, Doc{ID: fmt.Sprintf("w%04d", i), Text: fmt.Sprintf("alpha word%04d", i), Owner: "u", CreatedAt: t0})
		}
		docs = append(docs, Doc{ID: "apart", Text: "alpha beta word", Owner: "u", CreatedAt: t0})
		if err := ix.Apply(ctx, docs, nil, 1); err != nil {
			t.Fatal(err)
		}
		for _, q := range []Query{{Text: "alpha.wor", Mode: "prefix"}, {Text: `"alpha wor"`, Mode: "prefix"}, {Text: `"alpha wor"*`, Mode: "boolean"}, {Text: "alpha.zzz", Mode: "prefix"}} {
			q.Access, q.Size = Access{Principal: "u"}, 2*n
			res, err := ix.Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			want := n
			if strings.HasSuffix(q.Text, "zzz") {
				want = 0
			}
			if strings.Contains(ids(res), "apart") || len(res.Hits) != want {
				t.Errorf("%d terms, %s %q: %d hits, want %d (not apart)", n, q.Mode, q.Text, len(res.Hits), want)
			}
		}
	}
}
