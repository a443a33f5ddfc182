package grep

import (
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/contextd/contextd/index/outline"
)

func find(t *testing.T, opt Options, text string) []Match {
	t.Helper()
	m, err := Compile(opt)
	if err != nil {
		t.Fatalf("Compile(%+v): %v", opt, err)
	}
	ms, err := m.Find(outline.SplitLines(text), 0, time.Time{})
	if err != nil {
		t.Fatalf("Find: %v", err)
	}
	return ms
}

func runeSlice(s string, a, b int) string { return string([]rune(s)[a:b]) }

func TestFind(t *testing.T) {
	tests := []struct {
		name  string
		opt   Options
		text  string
		spans []string // matched text of each match, in order
		lines []int
	}{
		{"literal", Options{Pattern: "needle"}, "first line\nsecond needle line\nthird line", []string{"needle"}, []int{1}},
		{"code points", Options{Pattern: "needle"}, "héllo wörld 😀 needle", []string{"needle"}, []int{0}},
		{"literal dot", Options{Pattern: "a.b"}, "axb", nil, nil},
		{"regex dot", Options{Pattern: "a.b", Regex: true}, "axb", []string{"axb"}, []int{0}},
		{"cyrillic fold", Options{Pattern: "ПРИВЕТ"}, "ну привет мир", []string{"привет"}, []int{0}},
		{"long s", Options{Pattern: "s"}, "meaſure", []string{"ſ"}, []int{0}},
		{"kelvin", Options{Pattern: "k"}, "5 \u212a", []string{"\u212a"}, []int{0}},
		{"case sensitive", Options{Pattern: "X", CaseSensitive: true}, "x X", []string{"X"}, []int{0}},
		{"multiline anchors", Options{Pattern: "^foo$", Regex: true}, "x\r\nfoo\r\ny", []string{"foo"}, []int{1}},
		{"newline literal", Options{Pattern: "a\nb"}, "a\nb", nil, nil},
		{"crlf terminator", Options{Pattern: "a\r"}, "a\r\nb", nil, nil},
		{"lone cr kept", Options{Pattern: "a\rb"}, "a\rb\n", []string{"a\rb"}, []int{0}},
		{"count", Options{Pattern: "x", CaseSensitive: true}, "x x x\nx", []string{"x", "x", "x", "x"}, []int{0, 0, 0, 1}},
		{"non overlapping", Options{Pattern: "aa"}, "aaaa", []string{"aa", "aa"}, []int{0, 0}},
		{"combining", Options{Pattern: "e\u0301"}, "cafe\u0301 x", []string{"e\u0301"}, []int{0}},
		{"cjk regex", Options{Pattern: "日本.", Regex: true}, "😀\n日本語", []string{"日本語"}, []int{1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ms := find(t, tc.opt, tc.text)
			if len(ms) != len(tc.spans) {
				t.Fatalf("got %d matches %+v, want %d", len(ms), ms, len(tc.spans))
			}
			for i, m := range ms {
				if got := runeSlice(tc.text, m.Start, m.End); got != tc.spans[i] || m.Line != tc.lines[i] {
					t.Fatalf("match %d = %q line %d, want %q line %d", i, got, m.Line, tc.spans[i], tc.lines[i])
				}
			}
		})
	}
	if ms := find(t, Options{Pattern: "needle"}, "héllo wörld 😀 needle"); ms[0].Start != 14 {
		t.Fatalf("match_start = %d, want 14", ms[0].Start)
	}
}

func TestCompileErrors(t *testing.T) {
	for _, p := range []string{"a(b", `(a)\1`, "(?=x)", "(?<!x)y", "a++"} {
		_, err := Compile(Options{Pattern: p, Regex: true})
		var se *SyntaxError
		if !errors.As(err, &se) || !strings.HasPrefix(err.Error(), "Invalid regular expression: ") {
			t.Fatalf("Compile(%q) = %v, want Invalid regular expression", p, err)
		}
		if strings.Contains(err.Error(), "(?mi)") {
			t.Fatalf("message leaks flags: %v", err)
		}
	}
	if _, err := Compile(Options{Pattern: "a(b"}); err != nil {
		t.Fatalf("literal a(b must compile: %v", err)
	}
}

func TestLimit(t *testing.T) {
	m, _ := Compile(Options{Pattern: "m"})
	ms, _ := m.Find(outline.SplitLines("m\nm\nm"), 2, time.Time{})
	if len(ms) != 2 {
		t.Fatalf("got %d, want 2", len(ms))
	}
}

// TestPathological proves RE2's linear time on a pattern that takes
// exponential time under a backtracking engine: (a+)+$ over 100,000 a's
// and a "!" needs about 2^100000 steps to fail there, so finishing at all
// before the deadline is the proof. The deadline is generous rather than
// tight (a timed unit test would flake on a loaded machine: 1.1 s was seen
// under -race with a load average of 24; it takes about 10 ms alone).
func TestPathological(t *testing.T) {
	text := strings.Repeat("a", 100_000) + "!"
	m, err := Compile(Options{Pattern: "(a+)+$", Regex: true})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := m.Find(outline.SplitLines(text), 0, time.Now().Add(2*time.Minute))
	if err != nil {
		t.Fatalf("did not finish before the deadline: %v", err)
	}
	if len(ms) != 0 {
		t.Fatalf("got %d matches, want 0", len(ms))
	}
}

func TestDeadline(t *testing.T) {
	text := strings.Repeat("abc\n", 10_000)
	m, _ := Compile(Options{Pattern: "z", Regex: true})
	_, err := m.Find(outline.SplitLines(text), 0, time.Now().Add(-time.Second))
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
}

func FuzzFind(f *testing.F) {
	f.Add("needle", "a needle\r\nneedle", false, false)
	f.Add("^x$", "x\r\nx\ny", true, false)
	f.Add("s", "meaſure \u212a", false, false)
	f.Add("a*", "😀日本\n", true, true)
	f.Add("\r", "a\r\nb\rc", false, true)
	f.Fuzz(func(t *testing.T, pattern, text string, regex, cs bool) {
		if !utf8.ValidString(text) || !utf8.ValidString(pattern) {
			return
		}
		m, err := Compile(Options{Pattern: pattern, Regex: regex, CaseSensitive: cs})
		if err != nil {
			return
		}
		l := outline.SplitLines(text)
		ms, err := m.Find(l, 1000, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		total := utf8.RuneCountInString(text)
		prev := -1
		for _, mt := range ms {
			if mt.Start < 0 || mt.End < mt.Start || mt.End > total || mt.Line < 0 || mt.Line >= l.Count() {
				t.Fatalf("match %+v outside text of %d code points", mt, total)
			}
			if mt.Start < l.RuneStart[mt.Line] || mt.End > l.RuneEnd[mt.Line] {
				t.Fatalf("match %+v outside its line [%d,%d)", mt, l.RuneStart[mt.Line], l.RuneEnd[mt.Line])
			}
			if mt.Start < prev {
				t.Fatalf("matches out of order")
			}
			prev = mt.Start
			if !regex && cs && l.Slice(mt.Start, mt.End) != pattern {
				t.Fatalf("literal match %q != pattern %q", l.Slice(mt.Start, mt.End), pattern)
			}
		}
		// The ASCII fast path must agree with RE2's folding.
		if m.lowerASCII != "" {
			slow := *m
			slow.lowerASCII = ""
			want, _ := slow.Find(l, 1000, time.Time{})
			if len(want) != len(ms) {
				t.Fatalf("fast path found %d matches, RE2 %d", len(ms), len(want))
			}
			for i := range want {
				if want[i] != ms[i] {
					t.Fatalf("fast path %+v, RE2 %+v", ms[i], want[i])
				}
			}
		}
	})
}
