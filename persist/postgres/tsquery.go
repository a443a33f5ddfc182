package postgres

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/contextd/contextd/persist"
)

// This file turns full-text queries into PostgreSQL tsquery text, read by
// to_tsquery(config, ...) so every word is normalized (stemmed, stop words
// dropped) by the same configuration that built the index. Every word is a
// quoted tsquery string, so no user text is ever read as tsquery syntax.

// tsWord quotes one word as a tsquery string; prefix appends :*.
func tsWord(w string, prefix bool) string {
	q := "'" + strings.NewReplacer(`\`, `\\`, `'`, `''`).Replace(w) + "'"
	if prefix {
		q += ":*"
	}
	return q
}

// tsPhrase joins the words of s with <-> (followed by); the last word is a
// prefix when lastPrefix.
func tsPhrase(s string, lastPrefix bool) string {
	words := strings.Fields(s)
	parts := make([]string, len(words))
	for i, w := range words {
		parts[i] = tsWord(w, lastPrefix && i == len(words)-1)
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return "(" + strings.Join(parts, " <-> ") + ")"
}

// TSQuery renders a query of the given mode as tsquery text (R-351, the
// transform both stores share through persist.MatchTerms and
// persist.PrefixTerms). It returns "" when nothing is left to search for
// (no rows), and errBadBoolean for a boolean query outside the grammar,
// which the caller runs as a match query instead.
func TSQuery(query, mode, language string) (string, error) {
	switch mode {
	case persist.FullTextPhrase:
		if strings.TrimSpace(query) == "" {
			return "", nil
		}
		return tsPhrase(query, false), nil
	case persist.FullTextBoolean:
		return booleanTSQuery(query)
	case persist.FullTextPrefix:
		terms := persist.PrefixTerms(query, language)
		parts := make([]string, len(terms))
		for i, t := range terms {
			parts[i] = tsPhrase(t.Text, true)
		}
		return strings.Join(parts, " & "), nil
	default:
		terms := persist.MatchTerms(query, language)
		parts := make([]string, len(terms))
		for i, t := range terms {
			parts[i] = tsPhrase(t.Text, false)
		}
		return strings.Join(parts, " & "), nil
	}
}

// errBadBoolean is a boolean query outside the grammar.
var errBadBoolean = errors.New("boolean query is not valid")

// booleanTSQuery parses the FTS5 boolean grammar contextd documents:
//
//	or   := and ("OR" and)*
//	and  := not (["AND"] not)*        (adjacent terms are ANDed)
//	not  := atom ("NOT" atom)*        (a NOT b: a and not b)
//	atom := "(" or ")" | "phrase" | word | word*
//
// NOT binds tighter than AND, AND tighter than OR, as in FTS5. Operators
// are upper case; a bare word holds letters, digits and _ (anything else
// is an FTS5 syntax error, so both stores degrade the same queries).
func booleanTSQuery(q string) (string, error) {
	toks, err := boolTokens(q)
	if err != nil {
		return "", err
	}
	if len(toks) == 0 {
		return "", nil
	}
	p := &boolParser{toks: toks}
	out, err := p.or()
	if err != nil {
		return "", err
	}
	if p.i != len(p.toks) {
		return "", errBadBoolean
	}
	return out, nil
}

type boolTok struct {
	kind string // "(", ")", "AND", "OR", "NOT", "word", "phrase"
	text string
}

func boolTokens(q string) ([]boolTok, error) {
	var toks []boolTok
	for i := 0; i < len(q); {
		r, size := utf8.DecodeRuneInString(q[i:])
		switch {
		case unicode.IsSpace(r):
			i += size
		case r == '(' || r == ')':
			toks = append(toks, boolTok{kind: string(r)})
			i++
		case r == '"':
			j := strings.IndexByte(q[i+1:], '"')
			if j < 0 {
				return nil, errBadBoolean
			}
			toks = append(toks, boolTok{kind: "phrase", text: q[i+1 : i+1+j]})
			i += j + 2
		default:
			j := i
			for j < len(q) {
				r, size := utf8.DecodeRuneInString(q[j:])
				if unicode.IsSpace(r) || r == '(' || r == ')' || r == '"' {
					break
				}
				j += size
			}
			w := q[i:j]
			i = j
			switch w {
			case "AND", "OR", "NOT":
				toks = append(toks, boolTok{kind: w})
				continue
			}
			body := strings.TrimSuffix(w, "*")
			if body == "" || strings.ContainsFunc(body, func(r rune) bool {
				return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r >= 0x80)
			}) {
				return nil, errBadBoolean
			}
			toks = append(toks, boolTok{kind: "word", text: w})
		}
	}
	return toks, nil
}

type boolParser struct {
	toks []boolTok
	i    int
}

func (p *boolParser) peek() string {
	if p.i < len(p.toks) {
		return p.toks[p.i].kind
	}
	return ""
}

func (p *boolParser) or() (string, error) {
	left, err := p.and()
	if err != nil {
		return "", err
	}
	for p.peek() == "OR" {
		p.i++
		right, err := p.and()
		if err != nil {
			return "", err
		}
		left = "(" + left + " | " + right + ")"
	}
	return left, nil
}

func (p *boolParser) and() (string, error) {
	left, err := p.not()
	if err != nil {
		return "", err
	}
	for {
		switch p.peek() {
		case "AND":
			p.i++
		case "(", "word", "phrase":
		default:
			return left, nil
		}
		right, err := p.not()
		if err != nil {
			return "", err
		}
		left = "(" + left + " & " + right + ")"
	}
}

func (p *boolParser) not() (string, error) {
	left, err := p.atom()
	if err != nil {
		return "", err
	}
	for p.peek() == "NOT" {
		p.i++
		right, err := p.atom()
		if err != nil {
			return "", err
		}
		left = "(" + left + " & !" + right + ")"
	}
	return left, nil
}

func (p *boolParser) atom() (string, error) {
	if p.i >= len(p.toks) {
		return "", errBadBoolean
	}
	t := p.toks[p.i]
	p.i++
	switch t.kind {
	case "(":
		inner, err := p.or()
		if err != nil {
			return "", err
		}
		if p.peek() != ")" {
			return "", errBadBoolean
		}
		p.i++
		return inner, nil
	case "phrase":
		if strings.TrimSpace(t.text) == "" {
			return "", errBadBoolean
		}
		return tsPhrase(t.text, false), nil
	case "word":
		w, prefix := strings.CutSuffix(t.text, "*")
		return tsWord(w, prefix), nil
	}
	return "", errBadBoolean
}
