package outline

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"
)

var update = flag.Bool("update", false, "rewrite the golden outline file")

type goldenHeading struct {
	ID      string `json:"id"`
	Level   int    `json:"level"`
	Ordinal int    `json:"ordinal"`
	Title   string `json:"title"`
	Start   int    `json:"char_start"`
	End     int    `json:"char_end"`
}

// TestOutlineGolden pins the outline of every document in testdata/docs,
// and checks invariants of C.12 on each, so an -update cannot bless a
// broken outline silently.
func TestOutlineGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "docs", "*.md"))
	if err != nil || len(files) < 20 {
		t.Fatalf("want at least 20 golden documents, got %d (%v)", len(files), err)
	}
	sort.Strings(files)
	got := map[string][]goldenHeading{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		o := Parse(string(b))
		checkInvariants(t, filepath.Base(f), string(b), o)
		hs := []goldenHeading{}
		for _, h := range o.Headings {
			hs = append(hs, goldenHeading{h.ID, h.Level, h.Ordinal, h.Title, h.Start, h.End})
		}
		got[filepath.Base(f)] = hs
	}
	path := filepath.Join("testdata", "outlines.golden.json")
	enc, _ := json.MarshalIndent(got, "", "  ")
	if *update {
		if err := os.WriteFile(path, append(enc, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run with -update to create): %v", err)
	}
	if strings.TrimSpace(string(want)) != string(enc) {
		t.Fatalf("outlines differ from %s; got:\n%s", path, enc)
	}
}

// checkInvariants verifies rules that hold for every outline.
func checkInvariants(t *testing.T, name, text string, o *Outline) {
	t.Helper()
	total := utf8.RuneCountInString(text)
	if o.Lines.TotalRunes != total {
		t.Fatalf("%s: total %d, want %d", name, o.Lines.TotalRunes, total)
	}
	seen := map[string]bool{"root": true}
	for k, h := range o.Headings {
		if h.Start < 0 || h.Start > h.End || h.End > total {
			t.Fatalf("%s: heading %q span [%d,%d) outside [0,%d]", name, h.ID, h.Start, h.End, total)
		}
		if seen[h.ID] {
			t.Fatalf("%s: duplicate id %q", name, h.ID)
		}
		seen[h.ID] = true
		if h.Level < 1 || h.Level > MaxLevel {
			t.Fatalf("%s: level %d", name, h.Level)
		}
		if h.Parent >= 0 {
			p := o.Headings[h.Parent]
			if p.Level >= h.Level || !strings.HasPrefix(h.ID, p.ID+"/") || h.End > p.End {
				t.Fatalf("%s: %q is not nested in parent %q", name, h.ID, p.ID)
			}
		}
		// Each section starts at the start of a line.
		if i := o.Lines.LineOf(h.Start); o.Lines.RuneStart[i] != h.Start {
			t.Fatalf("%s: %q starts mid-line", name, h.ID)
		}
		// The section ends at the next heading of level <= its own.
		for j := k + 1; j < len(o.Headings); j++ {
			if o.Headings[j].Level <= h.Level {
				if o.Headings[j].Start != h.End {
					t.Fatalf("%s: %q ends at %d, next peer starts at %d", name, h.ID, h.End, o.Headings[j].Start)
				}
				break
			}
		}
		s, e, ok := o.Find(h.ID)
		if !ok || s != h.Start || e != h.End {
			t.Fatalf("%s: Find(%q) = %d,%d,%v", name, h.ID, s, e, ok)
		}
	}
}

func ids(o *Outline) []string {
	var out []string
	for _, h := range o.Headings {
		out = append(out, h.ID)
	}
	return out
}

func TestOutlineRules(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"basic", "# Intro\nhello\n## Details\nmore\n", []string{"intro", "intro/details"}},
		{"duplicates", "# Notes\n# Notes\n", []string{"notes", "notes-2"}},
		{"collision", "# Notes\n# Notes 2\n# Notes\n", []string{"notes", "notes-2", "notes-3"}},
		{"root reserved", "# Root\n", []string{"root-2"}},
		{"root only at top", "# A\n## Root\n", []string{"a", "a/root"}},
		{"empty title", "#\n", []string{"section"}},
		{"fence hides", "```\n# x\n```\n# y\n", []string{"y"}},
		{"unclosed fence", "```\n# x\n", []string{"x"}},
		{"no space", "#foo\n", nil},
		{"setext", "Title\n=====\n", []string{"title"}},
		{"list not setext", "- item\n---\n", nil},
		{"trailing hashes", "## Foo ##\n", []string{"foo"}},
		{"all hashes", "## ###\n", []string{"section"}},
		{"crlf", "# A\r\nx\r\n# B\r\n", []string{"a", "b"}},
		{"lone cr not a break", "x\r# A\n", nil},
		{"level skip", "### C\n# A\n### B\n", []string{"c", "a", "a/b"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ids(Parse(tc.text))
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("ids = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestOutlineSpansAndDepth(t *testing.T) {
	text := "# Intro\nhello\n## Details\nmore\n# Next\n"
	o := Parse(text)
	root, n := o.Tree(6)
	if n != 3 || root.ID != "root" || root.End != utf8.RuneCountInString(text) || root.Ordinal != 1 {
		t.Fatalf("root %+v n=%d", root, n)
	}
	d := root.Children[0].Children[0]
	if d.ID != "intro/details" || o.Lines.Slice(d.Start, d.End) != "## Details\nmore\n" {
		t.Fatalf("details node %+v text %q", d, o.Lines.Slice(d.Start, d.End))
	}
	root1, n1 := o.Tree(1)
	if n1 != 2 || len(root1.Children[0].Children) != 0 {
		t.Fatalf("depth 1: n=%d %+v", n1, root1.Children[0])
	}
	if root1.Children[0].ID != "intro" || root1.Children[0].End != root.Children[0].End {
		t.Fatalf("depth 1 changed id or span: %+v vs %+v", root1.Children[0], root.Children[0])
	}
}

func TestSlug(t *testing.T) {
	tests := map[string]string{
		"Hello, World!":                "hello-world",
		"  --x--  ":                    "x",
		"":                             "section",
		"!!!":                          "section",
		"日本語 テキスト":                     "日本語-テキスト",
		"cafe\u0301":                   "cafe\u0301",
		"snake_case":                   "snake_case",
		strings.Repeat("a", 70):        strings.Repeat("a", 64),
		strings.Repeat("a", 63) + " b": strings.Repeat("a", 63),
	}
	for in, want := range tests {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLines(t *testing.T) {
	tests := []struct {
		text  string
		lines []string
	}{
		{"a\nb\n", []string{"a", "b", ""}},
		{"a\r\nb", []string{"a", "b"}},
		{"a\rb\u2028c", []string{"a\rb\u2028c"}},
		{"", []string{""}},
		{"\r\n", []string{"", ""}},
	}
	for _, tc := range tests {
		l := SplitLines(tc.text)
		var got []string
		for i := 0; i < l.Count(); i++ {
			got = append(got, l.Line(i))
		}
		if strings.Join(got, "|") != strings.Join(tc.lines, "|") || len(got) != len(tc.lines) {
			t.Fatalf("SplitLines(%q) = %q, want %q", tc.text, got, tc.lines)
		}
	}
}

func FuzzOutline(f *testing.F) {
	seeds := []string{"# a\n## b\n", "x\n===\n", "```\n# a\n```\n", "- a\n---\n", "# 😀\r\n## ſ\n", "\r\r\n#", "~~~\n~~~~\n"}
	files, _ := filepath.Glob(filepath.Join("testdata", "docs", "*.md"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			seeds = append(seeds, string(b))
		}
	}
	for _, s := range seeds {
		f.Add(s, 6)
	}
	f.Fuzz(func(t *testing.T, text string, depth int) {
		o := Parse(text)
		checkInvariants(t, "fuzz", text, o)
		root, n := o.Tree(depth)
		count := 0
		var walk func(*Node)
		walk = func(nd *Node) {
			for _, c := range nd.Children {
				count++
				if c.Start < nd.Start || c.End > nd.End || c.Start > c.End {
					t.Fatalf("child %q [%d,%d) outside parent %q [%d,%d)", c.ID, c.Start, c.End, nd.ID, nd.Start, nd.End)
				}
				walk(c)
			}
		}
		walk(root)
		if count != n {
			t.Fatalf("node_count %d, walked %d", n, count)
		}
	})
}
