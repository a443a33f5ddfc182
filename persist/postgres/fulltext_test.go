package postgres

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/persisttest"
)

// TestBooleanTSQuery: the FTS5 boolean grammar as tsquery text, with
// FTS5's precedence (NOT > AND > OR), and the queries outside it.
func TestBooleanTSQuery(t *testing.T) {
	for q, want := range map[string]string{
		"python NOT pooling":            `('python' & !'pooling')`,
		"a OR b c":                      `('a' | ('b' & 'c'))`,
		"(zebra OR auth) AND crossing":  `(('zebra' | 'auth') & 'crossing')`,
		`"connection pooling" OR zebra`: `(('connection' <-> 'pooling') | 'zebra')`,
		"conn* AND it's":                "",
		"pyth*":                         `'pyth':*`,
		"   ":                           "",
	} {
		got, err := TSQuery(q, persist.FullTextBoolean, "english")
		if want == "" && q != "   " {
			if !errors.Is(err, errBadBoolean) {
				t.Errorf("%q = %q, %v; want a grammar error", q, got, err)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("%q = %q, %v; want %q", q, got, err, want)
		}
	}
	for _, q := range []string{"(python AND", `"zebra`, "connection AND (", "NOT", "a OR", "()", `""`, "a:b"} {
		if got, err := TSQuery(q, persist.FullTextBoolean, "english"); !errors.Is(err, errBadBoolean) {
			t.Errorf("%q = %q, %v; want a grammar error", q, got, err)
		}
	}
	if got, _ := TSQuery(`it's a \ test`, persist.FullTextMatch, "english"); got != `'it''s' & 'a' & '\\' & 'test'` {
		t.Errorf("quoting: %q", got)
	}
}

// FuzzTSQuery: no query makes TSQuery panic, and what it returns always
// has balanced parentheses and quotes (so to_tsquery reads it as built).
func FuzzTSQuery(f *testing.F) {
	for _, s := range []string{"python NOT pooling", `"a b" OR (c AND d*)`, `it's \'`, "((", "é*", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		for _, mode := range []string{persist.FullTextMatch, persist.FullTextPrefix, persist.FullTextPhrase, persist.FullTextBoolean} {
			out, err := TSQuery(q, mode, "english")
			if err != nil {
				if mode != persist.FullTextBoolean || !errors.Is(err, errBadBoolean) {
					t.Fatalf("%s %q: %v", mode, q, err)
				}
				continue
			}
			if !balanced(out) {
				t.Fatalf("%s %q: unbalanced tsquery %q", mode, q, out)
			}
		}
	})
}

// balanced reports whether parentheses outside quoted strings balance and
// every quoted string ends.
func balanced(s string) bool {
	depth, quoted := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quoted && c == '\\':
			i++
		case quoted && c == '\'' && i+1 < len(s) && s[i+1] == '\'':
			i++
		case c == '\'':
			quoted = !quoted
		case !quoted && c == '(':
			depth++
		case !quoted && c == ')':
			depth--
			if depth < 0 {
				return false
			}
		}
	}
	return depth == 0 && !quoted
}

// TestFullTextOddQueries: queries full of tsquery syntax and quoting reach
// the server as words, never as a syntax error or a driver message.
func TestFullTextOddQueries(t *testing.T) {
	ctx := context.Background()
	st := open(t, Options{})
	e := persisttest.NewEntry(1, "t", "user", "alice")
	e.Text = `it's a C:\path with & | ! <-> and 'quotes'`
	persisttest.Insert(t, st, []persist.Entry{e}, nil)
	if err := st.EnsureFullTextLanguage(ctx, "english"); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`it's`, `C:\path`, `& | !`, `<->`, `'quotes'`, `a:*`, `"it's a"`, `\`, `''`, "é ü"} {
		for _, mode := range []string{persist.FullTextMatch, persist.FullTextPrefix, persist.FullTextPhrase, persist.FullTextBoolean} {
			if _, err := st.FullTextSearch(ctx, persist.Access{Principal: "alice"}, persist.FullTextQuery{Query: q, Mode: mode, Language: "english", Limit: 5}); err != nil {
				t.Fatalf("%s %q: %v", mode, q, err)
			}
		}
	}
	_, err := st.FullTextSearch(ctx, persist.Access{Principal: "alice"}, persist.FullTextQuery{Query: "a\x00b", Mode: persist.FullTextMatch, Limit: 5})
	if !errors.Is(err, cerrors.ErrInvalid) {
		t.Fatalf("NUL query: %v", err)
	}
}

// TestErrorTexts: a failure names this backend, what failed and its kind
// in fixed words, matches its sentinel, and never carries the driver's
// message (ERROR:, SQLSTATE, constraint or table names).
func TestErrorTexts(t *testing.T) {
	ctx := context.Background()
	st := open(t, Options{})
	persisttest.Insert(t, st, []persist.Entry{persisttest.NewEntry(1, "t", "user", "alice")}, nil)
	var errs []error
	err := st.Write(ctx, func(tx persist.Tx) error {
		dup := persisttest.NewEntry(1, "t", "user", "alice")
		return tx.Insert(ctx, &dup, nil)
	})
	if err == nil || err.Error() != "postgresql: insert entry: unique violation" || !errors.Is(err, cerrors.ErrConflict) {
		t.Fatalf("duplicate insert err = %v", err)
	}
	errs = append(errs, err)
	err = st.Write(ctx, func(tx persist.Tx) error {
		e := persisttest.NewEntry(2, "t", "user", "alice")
		e.Text = "nul \x00 byte"
		return tx.Insert(ctx, &e, nil)
	})
	if err == nil || !errors.Is(err, cerrors.ErrInvalid) {
		t.Fatalf("NUL text err = %v", err)
	}
	errs = append(errs, err)
	err = st.Write(ctx, func(tx persist.Tx) error {
		_, err := tx.Grant(ctx, persisttest.ID(9), persist.Grant{PrincipalType: "user", PrincipalID: "b", Permission: "read", GrantedBy: "a"})
		return err
	})
	if err == nil || !errors.Is(err, cerrors.ErrNotFound) {
		t.Fatalf("grant on a missing entry err = %v", err)
	}
	errs = append(errs, err)
	for name, cond := range persisttest.BadMetaConds() {
		_, err := st.Search(ctx, persist.Access{Principal: "alice"}, persist.SearchQuery{Filter: persist.Filter{Meta: []persist.MetaCond{cond}}})
		if err == nil || !strings.HasPrefix(err.Error(), "postgresql: ") {
			t.Fatalf("%s: err = %v, want a postgresql: error", name, err)
		}
		errs = append(errs, err)
	}
	if _, err := Open(ctx, Options{URL: "postgres://nobody:secret@127.0.0.1:1/none?sslmode=disable&connect_timeout=2"}); err == nil ||
		!errors.Is(err, cerrors.ErrUnavailable) || strings.Contains(err.Error(), "secret") {
		t.Fatalf("unreachable server err = %v", err)
	} else {
		errs = append(errs, err)
	}
	for _, e := range errs {
		for _, b := range []string{"ERROR", "SQLSTATE", "pgx", "pgconn", "context_entr", "violates", "duplicate key", "dial"} {
			if strings.Contains(e.Error(), b) {
				t.Fatalf("%q carries %q", e.Error(), b)
			}
		}
	}
}
