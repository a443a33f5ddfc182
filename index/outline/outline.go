// Package outline owns the Markdown heading outline of one text (the
// index_tree of navigate_context): fence-aware ATX and setext headings,
// section spans, the stable node ids with their slug and collision rules,
// and the addressing of read_context_range (Resolve). Every offset is in Unicode code points; lines split on "\n" or
// "\r\n" only.
//
//	o := outline.Parse("# Intro\nhello\n## Details\nmore\n")
//	root, n := o.Tree(6)         // n == 2; root.Children[0].ID == "intro"
//	s, e, ok := o.Find("intro/details")
//
// The outline is computed on demand from the current text, so it is never
// stale; ids do not depend on the depth a caller asks for.
package outline

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/contextd/contextd/index/pyfmt"
)

// MaxLevel is the deepest Markdown heading level.
const MaxLevel = 6

// Heading is one heading of the text with its section.
type Heading struct {
	ID      string // slug path, e.g. "setup/install", "notes-2"
	Level   int    // 1..6
	Ordinal int    // the sibling counter that made the id unique (1 for the first)
	Title   string
	Start   int // code-point offset of the heading's first line
	End     int // end of its section (exclusive)
	Parent  int // index of the parent heading in Outline.Headings, -1 for root
}

// Outline is the heading outline of one text.
type Outline struct {
	Lines    *Lines
	Headings []Heading // in document order, all levels
	byID     map[string]int
}

// Node is one node of the tree a caller sees.
type Node struct {
	ID       string
	Level    int
	Ordinal  int
	Title    string
	Start    int
	End      int
	Children []*Node
}

var (
	fenceOpen   = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})(.*)$")
	fenceClose  = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})[ \t]*$")
	atxRe       = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$`)
	atxClosing  = regexp.MustCompile(`[ \t]+#+[ \t]*$`)
	setextH1    = regexp.MustCompile(`^ {0,3}=+[ \t]*$`)
	setextH2    = regexp.MustCompile(`^ {0,3}-+[ \t]*$`)
	listOrQuote = regexp.MustCompile(`^[\s\p{Z}]*([-*+]([\s\p{Z}]|$)|\d{1,9}[.)]([\s\p{Z}]|$)|>)`)
	indentCode  = regexp.MustCompile("^( {4}|\t)")
	thematic    = regexp.MustCompile(`^ {0,3}(?:\*(?:[ \t]*\*){2,}|_(?:[ \t]*_){2,}|-(?:[ \t]*-){2,})[ \t]*$`)
)

// fences marks the lines of closed fenced code blocks. An opener without a
// closer is an ordinary line.
func fences(l *Lines) []bool {
	in := make([]bool, l.Count())
	for i := 0; i < l.Count(); i++ {
		m := fenceOpen.FindStringSubmatch(l.Line(i))
		if m == nil {
			continue
		}
		run := m[1]
		if run[0] == '`' && strings.Contains(m[2], "`") {
			continue
		}
		closeAt := -1
		for j := i + 1; j < l.Count(); j++ {
			c := fenceClose.FindStringSubmatch(l.Line(j))
			if c != nil && c[1][0] == run[0] && len(c[1]) >= len(run) {
				closeAt = j
				break
			}
		}
		if closeAt < 0 {
			continue
		}
		for j := i; j <= closeAt; j++ {
			in[j] = true
		}
		i = closeAt
	}
	return in
}

func isBlank(s string) bool { return pyfmt.Strip(s) == "" }

// paragraphLine reports whether a line can be (part of) a setext title.
func paragraphLine(s string) bool {
	return !isBlank(s) && !listOrQuote.MatchString(s) && !indentCode.MatchString(s) &&
		!thematic.MatchString(s) && !atxRe.MatchString(s) && !fenceOpen.MatchString(s)
}

func isUnderline(s string) bool { return setextH1.MatchString(s) || setextH2.MatchString(s) }

// atxTitle extracts the title of an ATX heading's content.
func atxTitle(content string) string {
	t := pyfmt.Strip(content)
	if strings.Trim(t, "#") == "" {
		return ""
	}
	t = atxClosing.ReplaceAllString(t, "")
	return pyfmt.Strip(t)
}

type rawHeading struct {
	level      int
	title      string
	start, end int
}

// Parse computes the outline of text.
func Parse(text string) *Outline {
	l := SplitLines(text)
	fenced := fences(l)
	var raw []rawHeading
	n := l.Count()
	for i := 0; i < n; i++ {
		if fenced[i] {
			continue
		}
		line := l.Line(i)
		if m := atxRe.FindStringSubmatch(line); m != nil {
			raw = append(raw, rawHeading{level: len(m[1]), title: atxTitle(m[2]), start: l.RuneStart[i]})
			continue
		}
		if i+1 >= n || fenced[i+1] || !paragraphLine(line) {
			continue
		}
		next := l.Line(i + 1)
		level := 0
		switch {
		case setextH1.MatchString(next):
			level = 1
		case setextH2.MatchString(next):
			level = 2
		default:
			continue
		}
		first := i
		for first > 0 && !fenced[first-1] && paragraphLine(l.Line(first-1)) && !isUnderline(l.Line(first-1)) {
			first--
		}
		// Lines consumed earlier as a heading cannot be re-read as title:
		// the walk stops at the previous heading's start line.
		if len(raw) > 0 {
			if last := l.LineOf(raw[len(raw)-1].start); first <= last {
				first = last + 1
			}
		}
		parts := make([]string, 0, i-first+1)
		for j := first; j <= i; j++ {
			parts = append(parts, pyfmt.Strip(l.Line(j)))
		}
		raw = append(raw, rawHeading{level: level, title: strings.Join(parts, " "), start: l.RuneStart[first]})
		i++ // the underline
	}
	o := &Outline{Lines: l, Headings: make([]Heading, len(raw)), byID: make(map[string]int, len(raw))}
	for k := range raw {
		raw[k].end = l.TotalRunes
		for j := k + 1; j < len(raw); j++ {
			if raw[j].level <= raw[k].level {
				raw[k].end = raw[j].start
				break
			}
		}
	}
	o.assignIDs(raw)
	return o
}

// siblings tracks the slug counters and used segments under one parent.
type siblings struct {
	count map[string]int
	used  map[string]bool
}

func newSiblings() *siblings {
	return &siblings{count: map[string]int{}, used: map[string]bool{}}
}

// assignIDs gives every heading its node id over all levels, so ids never
// depend on the depth a caller asks for.
func (o *Outline) assignIDs(raw []rawHeading) {
	rootSibs := newSiblings()
	rootSibs.used["root"] = true
	sibs := make([]*siblings, len(raw))
	for k, r := range raw {
		parent := -1
		for j := k - 1; j >= 0; j-- {
			if raw[j].level < r.level {
				parent = j
				break
			}
		}
		s := rootSibs
		prefix := ""
		if parent >= 0 {
			if sibs[parent] == nil {
				sibs[parent] = newSiblings()
			}
			s = sibs[parent]
			prefix = o.Headings[parent].ID + "/"
		}
		base := Slug(r.title)
		s.count[base]++
		c := s.count[base]
		seg := base
		if c > 1 {
			seg = base + "-" + strconv.Itoa(c)
		}
		for s.used[seg] {
			c++
			s.count[base] = c
			seg = base + "-" + strconv.Itoa(c)
		}
		s.used[seg] = true
		id := prefix + seg
		o.Headings[k] = Heading{ID: id, Level: r.level, Ordinal: c, Title: r.title, Start: r.start, End: r.end, Parent: parent}
		o.byID[id] = k
	}
}

// maxSlugRunes bounds a slug segment.
const maxSlugRunes = 64

// Slug turns a title into an id segment: lower-cased, runs of non-word
// characters (word = Unicode letter, number, mark or underscore) become
// "-", trimmed of "-", cut to 64 code points; empty becomes "section".
func Slug(title string) string {
	t := strings.ReplaceAll(pyfmt.Strip(title), "\u0130", "i\u0307") // Python lower() of İ
	t = strings.ToLower(t)
	var b strings.Builder
	dash := false
	for _, r := range t {
		if r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	s := b.String()
	if utf8.RuneCountInString(s) > maxSlugRunes {
		s = string([]rune(s)[:maxSlugRunes])
		s = strings.TrimRight(s, "-")
	}
	if s == "" {
		return "section"
	}
	return s
}

// Tree returns the root node holding the headings of level ≤ maxDepth
// (clamped to 1..6) and how many there are. Deeper headings fold into the
// span of their section.
func (o *Outline) Tree(maxDepth int) (*Node, int) {
	maxDepth = min(max(maxDepth, 1), MaxLevel)
	root := &Node{ID: "root", Ordinal: 1, End: o.Lines.TotalRunes}
	nodes := make([]*Node, len(o.Headings))
	count := 0
	for k, h := range o.Headings {
		if h.Level > maxDepth {
			continue
		}
		n := &Node{ID: h.ID, Level: h.Level, Ordinal: h.Ordinal, Title: h.Title, Start: h.Start, End: h.End}
		nodes[k] = n
		count++
		parent := root
		if h.Parent >= 0 {
			parent = nodes[h.Parent]
		}
		parent.Children = append(parent.Children, n)
	}
	return root, count
}

// Find returns the span of the node id ("root" is the whole text).
func (o *Outline) Find(id string) (start, end int, ok bool) {
	if id == "root" {
		return 0, o.Lines.TotalRunes, true
	}
	k, ok := o.byID[id]
	if !ok {
		return 0, 0, false
	}
	return o.Headings[k].Start, o.Headings[k].End, true
}
