package chunk

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

type span struct {
	start, end int
	text       string
}

func TestSplit(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		size    int
		overlap int
		want    []span
	}{
		{"short text is one chunk, unstripped", "  hi  ", 10, 0, []span{{0, 6, "  hi  "}}},
		{"words, no overlap", "aaaa bbbb cccc dddd", 10, 0, []span{{0, 9, "aaaa bbbb"}, {10, 19, "cccc dddd"}}},
		{"words with overlap", "one two three four five six", 10, 4,
			[]span{{0, 7, "one two"}, {4, 13, "two three"}, {14, 23, "four five"}, {24, 27, "six"}}},
		{"paragraph then recursion into lines and words", "para one.\n\npara two is longer", 15, 0,
			[]span{{0, 9, "para one."}, {11, 22, "para two is"}, {23, 29, "longer"}}},
		{"only whitespace falls back to the whole text", strings.Repeat(" ", 12), 5, 0, []span{{0, 12, strings.Repeat(" ", 12)}}},
		{"code points, not bytes", "ééééé ééééé", 6, 0, []span{{0, 5, "ééééé"}, {6, 11, "ééééé"}}},
		{"characters when no separator is present", "abcdefghij", 4, 1,
			[]span{{0, 4, "abcd"}, {3, 7, "defg"}, {6, 10, "ghij"}}},
		{"sentence separator stays at the start of the next piece", "Alpha beta. Gamma delta. Eps", 13, 0,
			[]span{{0, 10, "Alpha beta"}, {10, 23, ". Gamma delta"}, {23, 28, ". Eps"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Split(tc.text, Options{Size: tc.size, Overlap: tc.overlap})
			if err != nil {
				t.Fatalf("Split: %v", err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d chunks %+v, want %d %+v", len(got), got, len(tc.want), tc.want)
			}
			for i, c := range got {
				w := tc.want[i]
				if c.Index != i || c.Start != w.start || c.End != w.end || c.Text != w.text {
					t.Fatalf("chunk %d = {%d %d %d %q}, want {%d %d %d %q}", i, c.Index, c.Start, c.End, c.Text, i, w.start, w.end, w.text)
				}
			}
		})
	}
}

func TestSplitRejects(t *testing.T) {
	for _, o := range []Options{{Size: 10, Overlap: 10}, {Size: 10, Overlap: -1}, {Size: -5, Overlap: 0}} {
		if _, err := Split("some text that is long enough", o); !errors.Is(err, ErrInvalid) {
			t.Fatalf("Split(%+v) error = %v, want ErrInvalid", o, err)
		}
	}
	if _, err := Split("bad \xff utf8", Options{}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("invalid UTF-8: error = %v, want ErrInvalid", err)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		size, overlap int
		agg           string
		ok            bool
	}{
		{1500, 150, "max", true},
		{100, 0, "", true},
		{10000, 500, "max", true},
		{99, 0, "", false},
		{10001, 0, "", false},
		{1500, 501, "", false},
		{1500, -1, "", false},
		{100, 100, "", false},
		{1500, 150, "mean", false},
	}
	for _, tc := range tests {
		err := Validate(tc.size, tc.overlap, tc.agg)
		if (err == nil) != tc.ok {
			t.Fatalf("Validate(%d, %d, %q) = %v, want ok=%v", tc.size, tc.overlap, tc.agg, err, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrInvalid) {
			t.Fatalf("Validate error %v does not wrap ErrInvalid", err)
		}
	}
}

func TestDefaults(t *testing.T) {
	text := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 100) // 4500 code points
	got, err := Split(text, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) < 3 {
		t.Fatalf("got %d chunks, want at least 3", len(got))
	}
	checkInvariants(t, text, DefaultSize, got)
	// Consecutive chunks overlap by at most the overlap.
	for i := 1; i < len(got); i++ {
		if ov := got[i-1].End - got[i].Start; ov > DefaultOverlap {
			t.Fatalf("chunks %d/%d overlap by %d > %d", i-1, i, ov, DefaultOverlap)
		}
	}
}

func checkInvariants(t *testing.T, text string, size int, got []Chunk) {
	t.Helper()
	runes := []rune(text)
	if len(got) == 0 {
		t.Fatalf("no chunks for %q", text)
	}
	for i, c := range got {
		if c.Index != i || c.Start < 0 || c.End > len(runes) || c.Start > c.End {
			t.Fatalf("chunk %d has bad offsets [%d,%d) for length %d", i, c.Start, c.End, len(runes))
		}
		if string(runes[c.Start:c.End]) != c.Text {
			t.Fatalf("chunk %d text %q != text[%d:%d] %q", i, c.Text, c.Start, c.End, string(runes[c.Start:c.End]))
		}
		whole := len(got) == 1 && c.Start == 0 && c.End == len(runes) // short or all-whitespace text
		if !whole && c.End-c.Start > size {
			t.Fatalf("chunk %d has %d code points > size %d", i, c.End-c.Start, size)
		}
	}
}

func FuzzSplit(f *testing.F) {
	f.Add("one two three four five six", 10, 4)
	f.Add("para one.\n\npara two is longer\nand a line. And a sentence.", 12, 3)
	f.Add("ééééé ééééé\u2028x\u001fy", 3, 1)
	f.Add("aaaa\n\n\n\nbbbb  \n cccc", 4, 0)
	f.Add("", 1, 0)
	f.Fuzz(func(t *testing.T, text string, size, overlap int) {
		if !utf8.ValidString(text) || size < 1 || size > 64 || overlap < 0 || overlap >= size {
			t.Skip()
		}
		got, err := Split(text, Options{Size: size, Overlap: overlap})
		if err != nil {
			t.Fatalf("Split: %v", err)
		}
		checkInvariants(t, text, size, got)
	})
}
