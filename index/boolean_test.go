package index

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// render prints a parsed query in prefix form for comparison.
func render(n *BoolNode) string {
	switch n.Kind {
	case NodeTerm, NodePhrase:
		s := n.Text
		if n.Kind == NodePhrase {
			s = fmt.Sprintf("%q", s)
		}
		if n.Prefix {
			s += "*"
		}
		return s
	}
	op := map[int]string{NodeAnd: "AND", NodeOr: "OR", NodeNot: "NOT"}[n.Kind]
	parts := make([]string, len(n.Kids))
	for i, k := range n.Kids {
		parts[i] = render(k)
	}
	return "(" + op + " " + strings.Join(parts, " ") + ")"
}

func TestParseBoolean(t *testing.T) {
	tests := []struct{ q, want string }{
		{"python NOT java", "(NOT python java)"},
		{"a b OR c", "(OR (AND a b) c)"},
		{"a AND (b OR c) NOT d", "(AND a (NOT (OR b c) d))"},
		{`"new york" OR auth*`, `(OR "new york" auth*)`},
		{`"say ""hi"""`, `"say \"hi\""`},
		{"and or not", "(AND and or not)"},
		{"café über", "(AND café über)"},
	}
	for _, tc := range tests {
		t.Run(tc.q, func(t *testing.T) {
			n, err := ParseBoolean(tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if got := render(n); got != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
		})
	}
	for _, bad := range []string{"(a AND", "a OR", "NOT a", `"x`, "foo:bar", "cat(", "a )", "", strings.Repeat("(", 100) + "a" + strings.Repeat(")", 100)} {
		t.Run("bad "+bad, func(t *testing.T) {
			if _, err := ParseBoolean(bad); !errors.Is(err, ErrSyntax) {
				t.Fatalf("ParseBoolean(%q): got %v, want ErrSyntax", bad, err)
			}
		})
	}
}
