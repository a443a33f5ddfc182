package grep

import (
	"context"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/contextd/contextd/index/outline"
	"github.com/contextd/contextd/persist"
)

// scanOne runs a content-mode scan of one entry.
func scanOne(t *testing.T, text, pattern string, regex bool, o ScanOptions) *ScanResult {
	t.Helper()
	m, err := Compile(Options{Pattern: pattern, Regex: regex})
	if err != nil {
		t.Fatal(err)
	}
	o.Content = true
	if o.MaxMatches == 0 {
		o.MaxMatches = 100
	}
	o.MaxScanned, o.CharBudget, o.RegexTimeout, o.RegexTotal = 10, 1<<30, time.Minute, time.Minute
	res, err := m.Scan(context.Background(), func(context.Context, *persist.Entry) ([]persist.Entry, bool, error) {
		return []persist.Entry{{ID: "e1", Text: text}}, false, nil
	}, o)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestContentLongLineWindow: a content-mode line longer than LineChars is
// cut to a window around its match with the exact markers; before lines
// keep their end, after lines their start; short lines stay whole.
func TestContentLongLineWindow(t *testing.T) {
	text := "short before\n" + strings.Repeat("x", 50) + "\n" +
		strings.Repeat("a", 3000) + "needle" + strings.Repeat("b", 3000) + "\n" +
		"é" + strings.Repeat("y", 60) + "\nshort after"
	res := scanOne(t, text, "needle", false, ScanOptions{ContextLines: 2, LineChars: 20})
	if len(res.Hits) != 1 {
		t.Fatalf("%d hits", len(res.Hits))
	}
	h := res.Hits[0]
	wantLine := "[2993 characters cut]aaaaaaaneedlebbbbbbb[2993 characters cut]"
	if h.Text != wantLine {
		t.Fatalf("line %q, want %q", h.Text, wantLine)
	}
	if h.Start != 13+51+3000 || h.End != h.Start+6 || h.Line != 2 {
		t.Fatalf("match %+v: offsets must stay in the whole text", h.Match)
	}
	wantBefore := []string{"short before", "[30 characters cut]" + strings.Repeat("x", 20)}
	wantAfter := []string{"é" + strings.Repeat("y", 19) + "[41 characters cut]", "short after"}
	if strings.Join(h.Before, "|") != strings.Join(wantBefore, "|") || strings.Join(h.After, "|") != strings.Join(wantAfter, "|") {
		t.Fatalf("before %q after %q", h.Before, h.After)
	}
	// A match at the line's start and one longer than the window.
	res = scanOne(t, "needle"+strings.Repeat("z", 100), "needle", false, ScanOptions{LineChars: 16})
	if got := res.Hits[0].Text; got != "needlezzzzzzzzzz[90 characters cut]" {
		t.Fatalf("start of line: %q", got)
	}
	res = scanOne(t, "ab"+strings.Repeat("q", 40)+"cd", "q+", true, ScanOptions{LineChars: 16})
	if got := res.Hits[0].Text; got != "[2 characters cut]"+strings.Repeat("q", 16)+"[26 characters cut]" {
		t.Fatalf("long match: %q", got)
	}
	// Without a limit the default applies: a 2,000-character line is cut.
	res = scanOne(t, strings.Repeat("k", 1000)+"needle"+strings.Repeat("k", 994), "needle", false, ScanOptions{})
	if got := utf8.RuneCountInString(res.Hits[0].Text); got != DefaultLineChars+2*len("[997 characters cut]") {
		t.Fatalf("default window: %d characters", got)
	}
}

// TestContentLongLineBounded: 1,000 matches on one line of 10 Mi
// characters answer about 1,000 windows, not 1,000 copies of the line.
func TestContentLongLineBounded(t *testing.T) {
	text := strings.Repeat("lorem ipsum dolor sit amet word ", 10<<20/32)
	res := scanOne(t, text, "w.rd", true, ScanOptions{MaxMatches: 1000, ContextLines: 20})
	if len(res.Hits) != 1000 {
		t.Fatalf("%d hits", len(res.Hits))
	}
	total := 0
	for _, h := range res.Hits {
		total += len(h.Text)
	}
	if total > 1000*(DefaultLineChars+2*len("[10485760 characters cut]")) {
		t.Fatalf("the rows hold %d bytes of line text", total)
	}
	// The hit at 27 + 32k: its window is centred on it.
	h := res.Hits[500]
	if h.Start != 27+32*500 {
		t.Fatalf("hit 500 at %d", h.Start)
	}
	mark := regexp.MustCompile(`^\[(\d+) characters cut\]`)
	m := mark.FindStringSubmatch(h.Text)
	if m == nil {
		t.Fatalf("no leading marker: %.60q", h.Text)
	}
	ws, _ := strconv.Atoi(m[1])
	if body := strings.TrimPrefix(h.Text, m[0]); !strings.HasPrefix(body, text[ws:ws+DefaultLineChars]) {
		t.Fatalf("window does not start at %d", ws)
	}
	if ws > h.Start || ws+DefaultLineChars < h.End {
		t.Fatalf("window [%d, %d) misses the match [%d, %d)", ws, ws+DefaultLineChars, h.Start, h.End)
	}
}

// TestWindowProperty: over random multi-byte lines and matches, a cut
// line is its markers around the exact slice of the line, of at most the
// limit, holding the match (or its start), and the markers count what
// was cut.
func TestWindowProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune("abcé€😀 ")
	mark := regexp.MustCompile(`^(?:\[(\d+) characters cut\])?(.*?)(?:\[(\d+) characters cut\])?$`)
	for range 2000 {
		n := 1 + r.IntN(300)
		line := make([]rune, n)
		for i := range line {
			line[i] = alphabet[r.IntN(len(alphabet))]
		}
		text := "head\n" + string(line) + "\ntail"
		l := outline.SplitLines(text)
		w := &windower{l: l, max: 1 + r.IntN(80)}
		s := 5 + r.IntN(n)
		e := s + r.IntN(n-(s-5)+1)
		got := w.hitLine(1, s, e)
		sub := mark.FindStringSubmatch(got)
		if sub == nil {
			t.Fatalf("%q: no match", got)
		}
		left, _ := strconv.Atoi(sub[1])
		right, _ := strconv.Atoi(sub[3])
		body := []rune(sub[2])
		if n <= w.max {
			if got != string(line) {
				t.Fatalf("short line cut: %q", got)
			}
			continue
		}
		if len(body) != w.max || left+len(body)+right != n || string(line[left:left+len(body)]) != string(body) {
			t.Fatalf("n %d max %d match [%d,%d): left %d body %d right %d", n, w.max, s-5, e-5, left, len(body), right)
		}
		ms, me := s-5, e-5
		if left > ms || (me-ms <= w.max && left+w.max < me) {
			t.Fatalf("window [%d,%d) misses match [%d,%d)", left, left+w.max, ms, me)
		}
	}
}
