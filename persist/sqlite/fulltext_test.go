package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/contextd/contextd/persist"
)

func TestFTS5Expression(t *testing.T) {
	tests := []struct {
		mode, lang, q, want string
	}{
		{persist.FullTextMatch, "english", "netes-con", `"netes con"`},
		{persist.FullTextMatch, "english", `auth AND "connection refused" or x`, `"auth" "connection refused" "x"`},
		{persist.FullTextMatch, "german", "a and b", `"a" "and" "b"`},
		{persist.FullTextMatch, "english", "and or NOT", ``},
		{persist.FullTextMatch, "english", `a"b`, `"a" "b"`},
		{persist.FullTextPrefix, "english", "auth* con-fig", `"auth"* "con"* "fig"*`},
		{persist.FullTextPrefix, "english", `"connection ref"`, `"connection ref"*`},
		{persist.FullTextPhrase, "english", `say "hi"`, `"say ""hi"""`},
		{persist.FullTextPhrase, "english", "  ", ``},
		{persist.FullTextBoolean, "english", "a NOT (b OR c)", "a NOT (b OR c)"},
	}
	for _, tc := range tests {
		t.Run(tc.mode+" "+tc.q, func(t *testing.T) {
			if got := FTS5Expression(tc.q, tc.mode, tc.lang); got != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
		})
	}
}

// TestFullTextLanguage: porter stemming for english only, unicode61 without
// stemming for every other language; the suite checks that every
// language finds the word itself.
func TestFullTextLanguage(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, Options{Path: filepath.Join(t.TempDir(), "x.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	err = st.Write(ctx, func(tx persist.Tx) error {
		return tx.Insert(ctx, &persist.Entry{ID: "0123456789abcdef0123456789abcdef", ThreadID: "t", Source: "user",
			ContentType: "text", Text: "the runners were running", Owner: "alice", Visibility: "public"}, nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	hits := func(q string) int {
		t.Helper()
		r, err := st.FullTextSearch(ctx, persist.Access{Principal: "bob"}, persist.FullTextQuery{Query: q, Mode: persist.FullTextMatch, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		return len(r.Hits)
	}
	tests := []struct {
		language string
		stemmed  int // hits of "run"
	}{
		{"english", 1}, {"german", 0}, {"german", 0}, {"english", 1},
	}
	for _, tc := range tests {
		if err := st.EnsureFullTextLanguage(ctx, tc.language); err != nil {
			t.Fatal(err)
		}
		if got := hits("run"); got != tc.stemmed {
			t.Fatalf("%s: %q found %d, want %d", tc.language, "run", got, tc.stemmed)
		}
	}
}
