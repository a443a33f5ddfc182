package extract

import (
	"bytes"
	"context"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// extractHTML renders an HTML page as text the way a reader sees it:
// scripts, styles, templates and the head are dropped (the <title> becomes
// Title), block elements start new lines, headings keep a Markdown "#"
// marker so navigate_context can outline them, list items get "- ",
// table cells are joined with " | ", <pre> keeps its spacing and every
// other run of whitespace collapses to one space. The tokenizer of
// golang.org/x/net/html is the HTML5 one: malformed markup is read the
// way browsers read it, never refused.
func extractHTML(ctx context.Context, _ string, data []byte, opt Options) (*Document, error) {
	s, err := decodeText(HTML, data)
	if err != nil {
		return nil, err
	}
	w := &htmlWriter{buf: limitedBuffer{limit: opt.MaxBytes}}
	z := html.NewTokenizer(strings.NewReader(s))
	z.SetMaxBuf(int(min(opt.MaxBytes, 1<<30)))
	var skip []atom.Atom // open elements whose content is dropped
	inTitle, pre := false, 0
	var title bytes.Buffer
	for n := 0; ; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if w.err != nil {
				return nil, w.err
			}
			return &Document{Text: w.text(), Title: strings.Join(strings.Fields(title.String()), " ")}, nil
		case html.StartTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			switch a {
			case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Svg, atom.Iframe, atom.Object:
				if tt == html.StartTagToken {
					skip = append(skip, a)
				}
				continue
			case atom.Title:
				inTitle = tt == html.StartTagToken
				continue
			case atom.Pre:
				pre++
			case atom.Br:
				w.newline()
				continue
			}
			if len(skip) > 0 {
				continue
			}
			w.open(a)
		case html.EndTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			if len(skip) > 0 {
				if skip[len(skip)-1] == a {
					skip = skip[:len(skip)-1]
				}
				continue
			}
			switch a {
			case atom.Title:
				inTitle = false
			case atom.Pre:
				pre = max(0, pre-1)
			}
			w.close(a)
		case html.TextToken:
			if len(skip) > 0 {
				continue
			}
			if inTitle {
				title.Write(z.Text())
				continue
			}
			w.write(string(z.Text()), pre > 0)
		}
	}
}

// htmlWriter accumulates rendered text with block structure.
type htmlWriter struct {
	buf    limitedBuffer
	err    error
	atLine bool // at the start of a line's content: no space is due

	pendSpace bool // a collapsed space is due before the next word
	cell      int  // cells written in the current table row
}

func (w *htmlWriter) add(s string) {
	if w.err == nil {
		w.err = w.buf.add(s)
	}
}

func (w *htmlWriter) newline() {
	w.add("\n")
	w.atLine, w.pendSpace = true, false
}

// block ends the current line, if any, with a blank line after it.
func (w *htmlWriter) block() {
	if w.buf.Len() == 0 {
		return
	}
	b := w.buf.Bytes()
	switch {
	case bytes.HasSuffix(b, []byte("\n\n")):
	case bytes.HasSuffix(b, []byte("\n")):
		w.add("\n")
	default:
		w.add("\n\n")
	}
	w.atLine, w.pendSpace = true, false
}

var headingLevel = map[atom.Atom]int{atom.H1: 1, atom.H2: 2, atom.H3: 3, atom.H4: 4, atom.H5: 5, atom.H6: 6}

func (w *htmlWriter) open(a atom.Atom) {
	if lvl, ok := headingLevel[a]; ok {
		w.block()
		w.add(strings.Repeat("#", lvl) + " ")
		w.atLine = true // no space before the heading's first word
		return
	}
	switch a {
	case atom.P, atom.Div, atom.Section, atom.Article, atom.Header, atom.Footer, atom.Main, atom.Nav,
		atom.Aside, atom.Blockquote, atom.Pre, atom.Ul, atom.Ol, atom.Dl, atom.Table, atom.Figure,
		atom.Form, atom.Fieldset, atom.Address, atom.Hr:
		w.block()
	case atom.Li:
		if !w.atLine {
			w.newline()
		}
		w.add("- ")
		w.atLine = true
	case atom.Tr, atom.Dt, atom.Dd:
		if !w.atLine {
			w.newline()
		}
		w.cell = 0
	case atom.Td, atom.Th:
		if w.cell > 0 {
			w.add(" | ")
		}
		w.cell++
		w.atLine, w.pendSpace = false, false
	}
}

func (w *htmlWriter) close(a atom.Atom) {
	if _, ok := headingLevel[a]; ok {
		w.block()
		return
	}
	switch a {
	case atom.P, atom.Div, atom.Section, atom.Article, atom.Header, atom.Footer, atom.Main, atom.Nav,
		atom.Aside, atom.Blockquote, atom.Pre, atom.Ul, atom.Ol, atom.Dl, atom.Table, atom.Figure,
		atom.Form, atom.Fieldset, atom.Address:
		w.block()
	case atom.Li, atom.Tr, atom.Dt, atom.Dd:
		if !w.atLine {
			w.newline()
		}
	}
}

// write adds a text run: verbatim inside <pre>, else whitespace collapsed.
func (w *htmlWriter) write(s string, pre bool) {
	if pre {
		w.add(s)
		w.atLine = strings.HasSuffix(s, "\n")
		return
	}
	words := strings.Fields(s)
	if len(words) == 0 {
		if s != "" && !w.atLine {
			w.pendSpace = true
		}
		return
	}
	lead := s[0] == ' ' || s[0] == '\n' || s[0] == '\t' || s[0] == '\r' || s[0] == '\f'
	if (w.pendSpace || lead) && !w.atLine {
		w.add(" ")
	}
	w.add(strings.Join(words, " "))
	w.atLine = false
	last := s[len(s)-1]
	w.pendSpace = last == ' ' || last == '\n' || last == '\t' || last == '\r' || last == '\f'
}

// text returns the rendered text with trailing spaces of lines removed.
func (w *htmlWriter) text() string {
	lines := strings.Split(w.buf.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.Join(lines, "\n")
}
