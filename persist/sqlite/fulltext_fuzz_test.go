package sqlite

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/contextd/contextd/persist"
)

// FuzzFTS5Expression: the match, prefix and phrase transforms always give
// FTS5 a valid expression (no user text can break out of its quotes), and
// a boolean query FTS5 rejects is degraded, never an error.
func FuzzFTS5Expression(f *testing.F) {
	st, err := Open(context.Background(), Options{Path: ":memory:"})
	if err != nil {
		f.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	err = st.Write(ctx, func(tx persist.Tx) error {
		return tx.Insert(ctx, &persist.Entry{ID: "0123456789abcdef0123456789abcdef", ThreadID: "t", Source: "user",
			ContentType: "text", Text: "connection refused by python", Owner: "alice", Visibility: "public"}, nil)
	})
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"python NOT java", "(a AND", `"x`, "cat(", "foo:bar", "netes-con", `a"b`, "and or not", "auth*", "NEAR(a b)", "^x", "a + b", "-", `""`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		for _, mode := range []string{persist.FullTextMatch, persist.FullTextPrefix, persist.FullTextPhrase, persist.FullTextBoolean} {
			_, err := st.FullTextSearch(ctx, persist.Access{Principal: "alice"}, persist.FullTextQuery{Query: q, Mode: mode, Language: "english", Limit: 5})
			if strings.IndexByte(q, 0) >= 0 {
				if !errors.Is(err, ErrNULQuery) {
					t.Fatalf("%s %q: got %v, want ErrNULQuery", mode, q, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s %q: %v", mode, q, err)
			}
		}
	})
}
