package rank

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTruncate(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"hello", 3, "hel"},
		{"hello", 5, "hello"},
		{"hello", 50, "hello"},
		{"hello", 0, ""},
		{"hello", -1, ""},
		{"", 4, ""},
		{"héllo wörld", 7, "héllo w"},
		{"日本語テキスト", 3, "日本語"},
		{"a\xffb", 2, "a\uFFFD"},
		{"a\xff\xfeb", 9, "a\uFFFDb"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if got := Truncate(tc.in, tc.max); got != tc.want {
				t.Fatalf("Truncate(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
			}
		})
	}
}

func TestChunkPassage(t *testing.T) {
	text := "αβγδε 0123456789"
	tests := []struct {
		name       string
		start, end int
		max        int
		want       string
	}{
		{"code points not bytes", 1, 4, 10, "βγδ"},
		{"capped", 6, 16, 4, "0123"},
		{"end clamped", 6, 99, 20, "0123456789"},
		{"start clamped", -5, 2, 20, "αβ"},
		{"empty span falls back", 3, 3, 5, "αβγδε"},
		{"reversed span falls back", 5, 2, 3, "αβγ"},
		{"span past the end falls back", 16, 20, 3, "αβγ"},
		{"zero cap", 0, 5, 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ChunkPassage(text, tc.start, tc.end, tc.max); got != tc.want {
				t.Fatalf("ChunkPassage(%d, %d, %d) = %q, want %q", tc.start, tc.end, tc.max, got, tc.want)
			}
		})
	}
}

func TestFTSPassage(t *testing.T) {
	digits := strings.Repeat("0123456789", 10) // 100 code points
	tests := []struct {
		name             string
		in               string
		window, gap, max int
		want             string
	}{
		{"no marks: prefix without tags", "plain <b>text</b> here", 10, 5, 9, "plain <b>"},
		{"no marks: stray close tag", "ab</mark>cd", 10, 5, 10, "abcd"},
		{"empty mark is no mark", "abc<mark></mark>def", 2, 0, 4, "abcd"},
		{"window centred on span",
			digits[:40] + "<mark>XY</mark>" + digits[40:], 6, 0, 100, "89XY01"},
		{"window shifted at the start", "<mark>XY</mark>" + digits, 6, 0, 100, "XY0123"},
		{"window shifted at the end", digits + "<mark>XY</mark>", 6, 0, 100, "6789XY"},
		{"far spans give two windows joined",
			digits[:20] + "<mark>A</mark>" + digits[20:60] + "<mark>B</mark>" + digits[60:], 3, 5, 100, "9A0 … 9B0"},
		{"close spans merge into one window",
			digits[:20] + "<mark>A</mark>" + digits[20:23] + "<mark>B</mark>" + digits[23:], 7, 5, 100, "9A012B3"},
		{"gap equal to gapMerge does not merge",
			digits[:20] + "<mark>A</mark>" + digits[20:25] + "<mark>B</mark>" + digits[25:], 1, 5, 100, "A … B"},
		{"overlapping windows join",
			digits[:20] + "<mark>A</mark>" + digits[20:30] + "<mark>B</mark>" + digits[30:], 14, 0, 100, "456789A0123456789B0123456"},
		{"long merged span kept whole",
			"xx<mark>abcdefgh</mark>yy", 4, 0, 100, "abcdefgh"},
		{"window larger than text", "a <mark>b</mark> c", 750, 100, 100, "a b c"},
		{"cap cuts later windows first",
			digits[:20] + "<mark>A</mark>" + digits[20:60] + "<mark>B</mark>" + digits[60:], 3, 5, 5, "9A0"},
		{"cap inside a window",
			digits[:20] + "<mark>A</mark>" + digits[20:60] + "<mark>B</mark>" + digits[60:], 3, 5, 7, "9A0 … 9"},
		{"code points not bytes",
			"ααααα<mark>β</mark>γγγγγ", 3, 0, 100, "αβγ"},
		{"window edges trimmed", "one two <mark>three</mark> four five", 7, 0, 100, "three"},
		{"unclosed mark runs to the end", "abcdef<mark>ghij", 2, 0, 100, "ghij"},
		{"nested mark", "ab<mark>c<mark>d</mark>e</mark>fg", 0, 0, 100, "cd"},
		{"zero window keeps spans", "ab<mark>c</mark>d<mark>e</mark>f", 0, 0, 100, "c … e"},
		{"negative gap", "ab<mark>c</mark><mark>d</mark>ef", 0, -3, 100, "cd"},
		{"zero cap", "<mark>x</mark>", 10, 10, 0, ""},
		{"rebuilt tag removed", "<ma<mark>rk>x</ma</mark>rk>", 100, 10, 100, "x"},
		{"partial rebuilt tag kept as text", "<ma<mark>rk>x</ma</mark>rk>", 10, 10, 100, "ark>x</mar"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := FTSPassage(tc.in, tc.window, tc.gap, tc.max)
			if got != tc.want {
				t.Fatalf("FTSPassage(%q, %d, %d, %d) = %q, want %q", tc.in, tc.window, tc.gap, tc.max, got, tc.want)
			}
		})
	}
}

func checkPassage(t *testing.T, fn, got string, maxChars int) {
	t.Helper()
	if !utf8.ValidString(got) {
		t.Fatalf("%s: invalid UTF-8 %q", fn, got)
	}
	if n := utf8.RuneCountInString(got); n > max(maxChars, 0) {
		t.Fatalf("%s: %d code points, cap %d", fn, n, maxChars)
	}
}

func FuzzFTSPassage(f *testing.F) {
	f.Add("a <mark>b</mark> c", 750, 100, 1945)
	f.Add("<ma<mark>rk>x</ma</mark>rk>", 3, 0, 10)
	f.Add("x<mark>\xff\xfe</mark>y<mark>z", -1, -1, 2)
	f.Add(strings.Repeat("word <mark>hit</mark> ", 50), 20, 5, 64)
	f.Fuzz(func(t *testing.T, text string, window, gap, maxChars int) {
		got := FTSPassage(text, window, gap, maxChars)
		checkPassage(t, "FTSPassage", got, maxChars)
		if strings.Contains(got, markOpen) || strings.Contains(got, markClose) {
			t.Fatalf("FTSPassage left a tag: %q", got)
		}
		checkPassage(t, "Truncate", Truncate(text, maxChars), maxChars)
		checkPassage(t, "ChunkPassage", ChunkPassage(text, window, gap, maxChars), maxChars)
	})
}
