package outline

import "testing"

func TestResolve(t *testing.T) {
	text := "# A\nalpha\n## B\nbeta é\n"
	ip := func(n int) *int { return &n }
	sp := func(s string) *string { return &s }
	cases := []struct {
		name string
		a    Address
		want Span
		ok   bool
	}{
		{"chars", Address{StartChar: ip(4), EndChar: ip(9)}, Span{4, 9, 2, 2, "alpha"}, true},
		{"chars clamped and inverted", Address{StartChar: ip(30), EndChar: ip(2)}, Span{22, 22, 5, 5, ""}, true},
		{"open end", Address{StartChar: ip(15)}, Span{15, 22, 4, 4, "beta é\n"}, true},
		{"lines", Address{StartLine: ip(2), EndLine: ip(3)}, Span{4, 14, 2, 3, "alpha\n## B"}, true},
		{"lines inverted read the first", Address{StartLine: ip(3), EndLine: ip(1)}, Span{10, 14, 3, 3, "## B"}, true},
		{"node", Address{NodeID: sp("a/b")}, Span{10, 22, 3, 4, "## B\nbeta é\n"}, true},
		{"missing node", Address{NodeID: sp("nope")}, Span{}, false},
	}
	for _, c := range cases {
		got, ok := Resolve(text, c.a)
		if ok != c.ok || got != c.want {
			t.Errorf("%s: got %+v %v, want %+v %v", c.name, got, ok, c.want, c.ok)
		}
	}
}
