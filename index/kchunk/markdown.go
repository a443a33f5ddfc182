package kchunk

import (
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// heading is a top-level Markdown heading: its level, plain text and the
// byte span of its line(s) (two lines for a Setext heading).
type heading struct {
	level int
	title string
	s     span
}

// markdown is the heading-aware (DocumentAware) strategy that Markdown
// files always get (B3): each section between consecutive headings
// becomes one chunk, prefixed with its breadcrumb ("Guide > Install" +
// blank line) — or, when longer than MaxTokens, is cut by the Recursive
// strategy with the breadcrumb's tokens taken off the budget, so the
// prefixed chunk still fits. A fenced code block is never cut: it is an
// atomic unit (a block longer than MaxTokens becomes one oversize chunk).
// A document with neither headings nor fenced code is chunked by
// Recursive. The heading lines themselves are carried by the breadcrumb,
// not by Start:End.
func (c *chunker) markdown() ([]Chunk, error) {
	src := []byte(c.text)
	doc := goldmark.New().Parser().Parse(text.NewReader(src))
	var heads []heading
	var fences []span
	err := ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			if n.Parent() == doc {
				if h, ok := c.headingOf(n, src); ok {
					heads = append(heads, h)
				}
			}
			return ast.WalkSkipChildren, nil
		case *ast.FencedCodeBlock:
			if f, ok := c.fenceOf(n); ok {
				fences = append(fences, f)
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	if err != nil {
		return nil, err
	}
	if len(heads) == 0 && len(fences) == 0 {
		spans, err := c.recursive(span{0, len(c.text)})
		if err != nil {
			return nil, err
		}
		return c.chunks(spans, ""), nil
	}
	var out []Chunk
	section := func(body span, crumb string) error {
		body = c.trim(body)
		if body.start >= body.end {
			return nil
		}
		spans, err := c.sectionSpans(body, crumb, fences)
		if err != nil {
			return err
		}
		out = append(out, c.chunks(spans, crumb)...)
		return nil
	}
	first := len(c.text)
	if len(heads) > 0 {
		first = heads[0].s.start
	}
	if err := section(span{0, first}, ""); err != nil {
		return nil, err
	}
	var stack []heading
	for i, h := range heads {
		for len(stack) > 0 && stack[len(stack)-1].level >= h.level {
			stack = stack[:len(stack)-1]
		}
		stack = append(stack, h)
		titles := make([]string, len(stack))
		for j, s := range stack {
			titles[j] = s.title
		}
		end := len(c.text)
		if i+1 < len(heads) {
			end = heads[i+1].s.start
		}
		if err := section(span{h.s.end, end}, c.breadcrumb(titles)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// breadcrumb joins the open headings with " > ", keeping it under half
// of MaxTokens so the section text always has room: the outermost headings
// are left out first, then the innermost one is cut by tokens.
func (c *chunker) breadcrumb(titles []string) string {
	limit := (c.r.max - 1) / 2 // the blank line after it is one more token
	for len(titles) > 1 && c.count(strings.Join(titles, " > ")) > limit {
		titles = titles[1:]
	}
	crumb := strings.Join(titles, " > ")
	for n := limit; n >= 0 && c.count(crumb) > limit; n-- {
		crumb = strings.TrimSpace(crumb[:c.indexAt(crumb, n)])
	}
	return crumb
}

// sectionSpans cuts one section body so each chunk, prefixed with crumb,
// fits MaxTokens, keeping every fenced code block whole.
func (c *chunker) sectionSpans(body span, crumb string, fences []span) ([]span, error) {
	budget := c.r.max
	if crumb != "" {
		budget = max(budget-c.count(crumb+"\n\n"), 1)
		if c.count(crumb+"\n\n"+c.text[body.start:body.end]) <= c.r.max {
			return []span{body}, nil
		}
	} else if c.tokens(body) <= budget {
		return []span{body}, nil
	}
	var units []span
	at := body.start
	prose := func(s span) error {
		sub, err := c.split(s, RecursiveSeparators, budget)
		units = append(units, sub...)
		return err
	}
	for _, f := range fences {
		if f.end <= at || f.start >= body.end {
			continue
		}
		if f.start > at {
			if err := prose(span{at, f.start}); err != nil {
				return nil, err
			}
		}
		fs := c.trim(span{max(f.start, at), min(f.end, body.end)})
		if fs.start < fs.end {
			units = append(units, fs)
		}
		at = f.end
	}
	if at < body.end {
		if err := prose(span{at, body.end}); err != nil {
			return nil, err
		}
	}
	// Re-join neighbouring units (a code block and the prose around it)
	// while they fit; overlapping units (Recursive overlap) stay apart.
	var out []span
	for _, u := range units {
		if n := len(out); n > 0 && u.start >= out[n-1].end && c.tokens(span{out[n-1].start, u.end}) <= budget {
			out[n-1].end = u.end
			continue
		}
		out = append(out, u)
	}
	return out, nil
}

// headingOf locates a heading's line(s) and plain text.
func (c *chunker) headingOf(n *ast.Heading, src []byte) (heading, bool) {
	lines := n.Lines()
	if lines.Len() == 0 {
		return heading{}, false
	}
	start := lineStart(c.text, lines.At(0).Start)
	end := lineEnd(c.text, lines.At(lines.Len()-1).Stop)
	if !strings.HasPrefix(strings.TrimLeft(c.text[start:], " "), "#") {
		end = lineEnd(c.text, min(end+1, len(c.text))) // Setext underline
	}
	var b strings.Builder
	_ = ast.Walk(n, func(m ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch m := m.(type) {
		case *ast.Text:
			b.Write(m.Segment.Value(src))
			if m.SoftLineBreak() || m.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(m.Value)
		}
		return ast.WalkContinue, nil
	})
	title := strings.Join(strings.Fields(b.String()), " ")
	if title == "" {
		return heading{}, false
	}
	return heading{level: n.Level, title: title, s: span{start, end}}, true
}

// fenceOf finds the byte span of a fenced code block, fences included.
func (c *chunker) fenceOf(n *ast.FencedCodeBlock) (span, bool) {
	var open, after int
	switch lines := n.Lines(); {
	case lines.Len() > 0:
		first := lineStart(c.text, lines.At(0).Start)
		if first == 0 {
			return span{}, false
		}
		open = lineStart(c.text, first-1)
		after = lines.At(lines.Len() - 1).Stop
	case n.Info != nil:
		open = lineStart(c.text, n.Info.Segment.Start)
		after = min(lineEnd(c.text, n.Info.Segment.Stop)+1, len(c.text))
	default:
		return span{}, false
	}
	end := after
	if after < len(c.text) {
		next := strings.TrimLeft(c.text[after:lineEnd(c.text, after)], " \t>")
		if strings.HasPrefix(next, "```") || strings.HasPrefix(next, "~~~") {
			end = lineEnd(c.text, after)
		}
	}
	return span{open, end}, true
}

func lineStart(s string, i int) int {
	if i > len(s) {
		i = len(s)
	}
	return strings.LastIndexByte(s[:i], '\n') + 1
}

func lineEnd(s string, i int) int {
	if i >= len(s) {
		return len(s)
	}
	if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(s)
}
