package index

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// ErrSyntax is a boolean query the grammar rejects. fts_search_context
// does not fail on it: the query runs as a sanitized match query instead.
var ErrSyntax = errors.New("boolean query syntax error")

// maxBoolDepth bounds parenthesis nesting (and so parser recursion).
const maxBoolDepth = 64

// BoolNode is a parsed boolean query. Kind is one of the Node* constants;
// Text is set on NodeTerm and NodePhrase, Kids on the operators (NodeNot
// has exactly two: what to keep and what to exclude).
type BoolNode struct {
	Kind   int
	Text   string
	Prefix bool // a trailing '*' on a term or phrase
	Kids   []*BoolNode
}

// Node kinds.
const (
	NodeTerm = iota
	NodePhrase
	NodeAnd
	NodeOr
	NodeNot
)

// ParseBoolean parses the boolean mode grammar, the FTS5 query syntax the
// native backend passes through: barewords, "quoted phrases" (a doubled
// quote is a literal quote), a trailing '*' for prefixes, parentheses,
// and the uppercase operators NOT (tightest), AND (also implicit between
// adjacent operands) and OR (loosest). Bareword characters are letters,
// digits, '_' and any non-ASCII character; any other character is a
// syntax error, as in FTS5.
func ParseBoolean(q string) (*BoolNode, error) {
	toks, err := lexBoolean(q)
	if err != nil {
		return nil, err
	}
	if len(toks) == 0 {
		return nil, fmt.Errorf("%w: empty query", ErrSyntax)
	}
	p := &boolParser{toks: toks}
	n, err := p.or(0)
	if err != nil {
		return nil, err
	}
	if p.i < len(p.toks) {
		return nil, fmt.Errorf("%w: unexpected %q", ErrSyntax, p.toks[p.i].text)
	}
	return n, nil
}

type boolTok struct {
	kind   byte // 'w' word, 'p' phrase, '(' , ')', 'A' AND, 'O' OR, 'N' NOT
	text   string
	prefix bool
}

func bareRune(r rune) bool {
	return r >= 0x80 || r == '_' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || r == 0x1a
}

func lexBoolean(q string) ([]boolTok, error) {
	if !utf8.ValidString(q) {
		return nil, fmt.Errorf("%w: query is not valid UTF-8", ErrSyntax)
	}
	var toks []boolTok
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '(' || c == ')':
			toks = append(toks, boolTok{kind: c, text: string(c)})
			i++
		case c == '"':
			var sb strings.Builder
			j := i + 1
			closed := false
			for j < len(q) {
				if q[j] == '"' {
					if j+1 < len(q) && q[j+1] == '"' {
						sb.WriteByte('"')
						j += 2
						continue
					}
					closed = true
					j++
					break
				}
				sb.WriteByte(q[j])
				j++
			}
			if !closed {
				return nil, fmt.Errorf("%w: unterminated quoted phrase", ErrSyntax)
			}
			t := boolTok{kind: 'p', text: sb.String()}
			if j < len(q) && q[j] == '*' {
				t.prefix = true
				j++
			}
			toks = append(toks, t)
			i = j
		default:
			r, size := utf8.DecodeRuneInString(q[i:])
			if !bareRune(r) {
				return nil, fmt.Errorf("%w: unexpected character %q", ErrSyntax, r)
			}
			j := i + size
			for j < len(q) {
				r, size := utf8.DecodeRuneInString(q[j:])
				if !bareRune(r) {
					break
				}
				j += size
			}
			t := boolTok{kind: 'w', text: q[i:j]}
			switch t.text {
			case "AND":
				t.kind = 'A'
			case "OR":
				t.kind = 'O'
			case "NOT":
				t.kind = 'N'
			}
			if j < len(q) && q[j] == '*' && t.kind == 'w' {
				t.prefix = true
				j++
			}
			toks = append(toks, t)
			i = j
		}
	}
	return toks, nil
}

type boolParser struct {
	toks []boolTok
	i    int
}

func (p *boolParser) peek() (boolTok, bool) {
	if p.i < len(p.toks) {
		return p.toks[p.i], true
	}
	return boolTok{}, false
}

func (p *boolParser) or(depth int) (*BoolNode, error) {
	first, err := p.and(depth)
	if err != nil {
		return nil, err
	}
	kids := []*BoolNode{first}
	for {
		t, ok := p.peek()
		if !ok || t.kind != 'O' {
			break
		}
		p.i++
		n, err := p.and(depth)
		if err != nil {
			return nil, err
		}
		kids = append(kids, n)
	}
	if len(kids) == 1 {
		return first, nil
	}
	return &BoolNode{Kind: NodeOr, Kids: kids}, nil
}

func (p *boolParser) and(depth int) (*BoolNode, error) {
	first, err := p.not(depth)
	if err != nil {
		return nil, err
	}
	kids := []*BoolNode{first}
	for {
		t, ok := p.peek()
		if !ok {
			break
		}
		switch t.kind {
		case 'A':
			p.i++
		case 'w', 'p', '(':
		default:
			goto done
		}
		n, err := p.not(depth)
		if err != nil {
			return nil, err
		}
		kids = append(kids, n)
	}
done:
	if len(kids) == 1 {
		return first, nil
	}
	return &BoolNode{Kind: NodeAnd, Kids: kids}, nil
}

func (p *boolParser) not(depth int) (*BoolNode, error) {
	n, err := p.primary(depth)
	if err != nil {
		return nil, err
	}
	for {
		t, ok := p.peek()
		if !ok || t.kind != 'N' {
			return n, nil
		}
		p.i++
		ex, err := p.primary(depth)
		if err != nil {
			return nil, err
		}
		n = &BoolNode{Kind: NodeNot, Kids: []*BoolNode{n, ex}}
	}
}

func (p *boolParser) primary(depth int) (*BoolNode, error) {
	t, ok := p.peek()
	if !ok {
		return nil, fmt.Errorf("%w: query ends where an operand was expected", ErrSyntax)
	}
	switch t.kind {
	case 'w':
		p.i++
		return &BoolNode{Kind: NodeTerm, Text: t.text, Prefix: t.prefix}, nil
	case 'p':
		p.i++
		return &BoolNode{Kind: NodePhrase, Text: t.text, Prefix: t.prefix}, nil
	case '(':
		if depth >= maxBoolDepth {
			return nil, fmt.Errorf("%w: parentheses nested deeper than %d", ErrSyntax, maxBoolDepth)
		}
		p.i++
		n, err := p.or(depth + 1)
		if err != nil {
			return nil, err
		}
		if t, ok := p.peek(); !ok || t.kind != ')' {
			return nil, fmt.Errorf("%w: unbalanced parenthesis", ErrSyntax)
		}
		p.i++
		return n, nil
	}
	return nil, fmt.Errorf("%w: unexpected %q", ErrSyntax, t.text)
}
