package index

import (
	"context"
	"errors"
	"testing"
)

var querySeeds = []string{
	"python NOT java", "(a AND", `"connection refused"`, `"x`, "cat(", "foo:bar", "and or not",
	"auth*", `"quoted phrase"* OR (x y) NOT z`, "((((a))))", "a OR OR b", "NOT a", "", "  ", "é café",
	"a\x00b", "\xff\xfe", `""""`, "a-b-c", "x*y",
}

// FuzzParseBoolean: the boolean parser never panics, and every failure is
// an ErrSyntax (which the search degrades to a match query).
func FuzzParseBoolean(f *testing.F) {
	for _, s := range querySeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		n, err := ParseBoolean(q)
		if err != nil {
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("ParseBoolean(%q): error %v is not ErrSyntax", q, err)
			}
			return
		}
		if n == nil {
			t.Fatalf("ParseBoolean(%q): nil node without error", q)
		}
	})
}

// FuzzSearchModes: every mode accepts any text without panicking or
// failing.
func FuzzSearchModes(f *testing.F) {
	ix, err := Open(Options{})
	if err != nil {
		f.Fatal(err)
	}
	defer ix.Close()
	if err := ix.Apply(context.Background(), testDocs(), nil, 1); err != nil {
		f.Fatal(err)
	}
	for _, s := range querySeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		for _, mode := range []string{"match", "prefix", "phrase", "boolean"} {
			if _, err := ix.Search(context.Background(), Query{Text: q, Mode: mode, Access: Access{Principal: "alice"}, Size: 10, Highlight: true}); err != nil {
				t.Fatalf("%s %q: %v", mode, q, err)
			}
		}
	})
}
