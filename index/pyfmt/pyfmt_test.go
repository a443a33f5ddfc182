package pyfmt

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestStrip(t *testing.T) {
	cases := map[string]string{
		"  a b  ":             "a b",
		"\u3000tag\u00a0":     "tag",
		"\x1c\x1d x \x1e\x1f": "x",
		"\u200bx":             "\u200bx", // zero-width space is not white space in Python
		"":                    "",
	}
	for in, want := range cases {
		if got := Strip(in); got != want {
			t.Errorf("Strip(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestQuote(t *testing.T) {
	cases := map[string]string{
		"abc":      "'abc'",
		"it's":     `"it's"`,
		`it's "x"`: `'it\'s "x"'`,
		"a\nb":     `'a\nb'`,
		`\`:        `'\\'`,
		"\x00\x7f": `'\x00\x7f'`,
		"é":        "'é'",
	}
	for in, want := range cases {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestAbbrev(t *testing.T) {
	cases := map[string]string{
		"abc":                   "'abc'",
		"it's":                  `'it\'s'`,
		`say "hi"`:              `'say "hi"'`,
		"a\tb":                  `'a\tb'`,
		strings.Repeat("x", 41): "'" + strings.Repeat("x", 40) + "...'",
		strings.Repeat("é", 40): "'" + strings.Repeat("é", 40) + "'",
	}
	for in, want := range cases {
		if got := Abbrev(in); got != want {
			t.Errorf("Abbrev(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestNumber(t *testing.T) {
	cases := map[float64]string{3: "3", -2: "-2", 1.5: "1.5", 1e15: "1e+15", 1.5e300: "1.5e+300", 3000000000: "3000000000"}
	for in, want := range cases {
		if got := Number(in); got != want {
			t.Errorf("Number(%v) = %s, want %s", in, got, want)
		}
	}
}

func TestRepr(t *testing.T) {
	v := map[string]any{
		"zeta":  []any{1.0, 2.5, nil, true, false},
		"key":   "k",
		"value": map[string]any{"b": "x", "value": "y", "a": 1.0},
		"op":    "gt",
	}
	got := Repr(v, "key", "operator", "value")
	want := `{'key': 'k', 'value': {'value': 'y', 'a': 1, 'b': 'x'}, 'op': 'gt', 'zeta': [1, 2.5, None, True, False]}`
	if got != want {
		t.Fatalf("Repr = %s\nwant   %s", got, want)
	}
	if got := Repr(map[string]any{"b": 1.0, "a": "it's"}); got != `{'a': "it's", 'b': 1}` {
		t.Fatalf("Repr without order = %s", got)
	}
}

func TestJSON(t *testing.T) {
	v := map[string]any{"b": []any{1.0, "x", nil, true}, "a": map[string]any{}, "c": 0.25}
	want := `{"a": {}, "b": [1, "x", null, true], "c": 0.25}`
	if got := JSON(v); got != want {
		t.Fatalf("JSON = %s, want %s", got, want)
	}
}

func FuzzStrip(f *testing.F) {
	for _, s := range []string{" a ", "\u3000\x1c", "x", "\xff \t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Strip(s)
		if Strip(got) != got {
			t.Fatalf("Strip(%q) = %q is not stable", s, got)
		}
		if !strings.Contains(s, got) {
			t.Fatalf("Strip(%q) = %q is not a substring", s, got)
		}
		if r, _ := utf8.DecodeRuneInString(got); got != "" && r != utf8.RuneError && isPySpace(r) {
			t.Fatalf("Strip(%q) = %q keeps leading space", s, got)
		}
	})
}

// FuzzQuote checks that Quote is a repr: for valid UTF-8 it reads back as
// the input under Python's rules, and it never emits a raw control byte.
func FuzzQuote(f *testing.F) {
	for _, s := range []string{"abc", "it's", `it's "x"`, "a\nb\\", "\x00\x7f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := Quote(s)
		for i := 0; i < len(q); i++ {
			if c := q[i]; c < 0x20 || c == 0x7f {
				t.Fatalf("Quote(%q) = %q holds raw control byte %#x", s, q, c)
			}
		}
		if !utf8.ValidString(s) {
			return
		}
		back, err := unrepr(q)
		if err != nil || back != s {
			t.Fatalf("Quote(%q) = %s reads back as %q (%v)", s, q, back, err)
		}
	})
}

// unrepr reads a Python string literal of the forms Quote writes.
func unrepr(q string) (string, error) {
	quote := q[0]
	if len(q) < 2 || q[len(q)-1] != quote {
		return "", strconv.ErrSyntax
	}
	body := q[1 : len(q)-1]
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c == quote {
			return "", strconv.ErrSyntax // an unescaped closing quote
		}
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(body) {
			return "", strconv.ErrSyntax
		}
		switch body[i] {
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case '\\', '\'', '"':
			b.WriteByte(body[i])
		case 'x':
			if i+3 > len(body) {
				return "", strconv.ErrSyntax
			}
			n, err := strconv.ParseUint(body[i+1:i+3], 16, 8)
			if err != nil {
				return "", err
			}
			b.WriteByte(byte(n))
			i += 2
		default:
			return "", strconv.ErrSyntax
		}
	}
	return b.String(), nil
}

func FuzzRepr(f *testing.F) {
	f.Add("k", 1.5, true)
	f.Fuzz(func(t *testing.T, s string, x float64, b bool) {
		if s == "key" || s == "value" {
			return
		}
		v := map[string]any{"key": s, "value": []any{x, b, nil}, s: s}
		got := Repr(v, "key", "value")
		if !strings.HasPrefix(got, "{'key': ") || !strings.HasSuffix(got, "}") {
			t.Fatalf("Repr(%v) = %s", v, got)
		}
		if !math.IsNaN(x) && !strings.Contains(got, Number(x)) {
			t.Fatalf("Repr(%v) = %s lacks the number", v, got)
		}
	})
}
