// Package query reads the query languages of contextd's keyword searches
// into their operands, before any analysis (tokenizing, stemming): it
// knows nothing of indexes, so the store, the full-text index, hybrid
// search and knowledge search share it.
//
//   - [Fields] splits a query into "quoted phrases" and white-space
//     separated words (`"[^"]*"|\S+`), the first step of the context
//     tools' match and prefix modes (persist.MatchTerms, R-351) and of
//     hybrid search's adaptive OR query (internal/rank).
//   - [Websearch] reads PostgreSQL's websearch_to_tsquery grammar (words,
//     "phrases", or, -negation), the grammar of knowledge Keyword search
//     (requirements I.5).
//
// The FTS5 boolean grammar of the context tools' boolean mode is
// index.ParseBoolean.
package query

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Fields splits q into `"[^"]*"|\S+` tokens, white space being Unicode's;
// quoted reports which tokens were quoted phrases (returned without their
// quotes). A quote that opens no closed phrase is part of its word.
func Fields(q string) (toks []string, quoted []bool) {
	i := 0
	for i < len(q) {
		r, size := utf8.DecodeRuneInString(q[i:])
		if unicode.IsSpace(r) {
			i += size
			continue
		}
		if r == '"' {
			if j := strings.IndexByte(q[i+1:], '"'); j >= 0 {
				toks = append(toks, q[i+1:i+1+j])
				quoted = append(quoted, true)
				i += j + 2
				continue
			}
		}
		j := i
		for j < len(q) {
			r, size := utf8.DecodeRuneInString(q[j:])
			if unicode.IsSpace(r) {
				break
			}
			j += size
		}
		toks = append(toks, q[i:j])
		quoted = append(quoted, false)
		i = j
	}
	return toks, quoted
}

// Item is one operand of a websearch query: a word or the inside of a
// "quoted phrase", raw (the caller tokenizes it), and whether a '-'
// negated it.
type Item struct {
	Text   string
	Quoted bool
	Neg    bool
}

// Websearch reads q as PostgreSQL's websearch_to_tsquery reads it and
// returns an OR of groups, each an AND of items: words are AND-ed;
// "quoted text" is a phrase (an unclosed quote runs to the end); `or`
// (any case) between two items makes an OR, which binds looser than the
// AND ("a b or c" is (a AND b) OR c), and is dropped elsewhere; '-'
// before a word or a quote negates it. Items are separated by ASCII
// white space and quotes; other punctuation is left to the caller's
// tokenizer, so no input is a syntax error. No groups: nothing to search.
func Websearch(q string) [][]Item {
	var items []Item
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case isSpace(c):
			i++
		case c == '"' || (c == '-' && i+1 < len(q) && q[i+1] == '"'):
			neg := c == '-'
			if neg {
				i++
			}
			end := strings.IndexByte(q[i+1:], '"')
			if end < 0 {
				end = len(q) - i - 1 // an unclosed quote runs to the end
			}
			items = append(items, Item{Text: q[i+1 : i+1+end], Neg: neg, Quoted: true})
			i += end + 2
		default:
			j := i
			for j < len(q) && !isSpace(q[j]) && q[j] != '"' {
				j++
			}
			w := q[i:j]
			items = append(items, Item{Text: strings.TrimLeft(w, "-"), Neg: strings.HasPrefix(w, "-")})
			i = j
		}
	}
	var groups [][]Item
	var cur []Item
	orPending := false
	for _, it := range items {
		if !it.Quoted && !it.Neg && strings.EqualFold(it.Text, "or") {
			orPending = len(cur) > 0
			continue
		}
		if orPending {
			groups = append(groups, cur)
			cur = nil
			orPending = false
		}
		cur = append(cur, it)
	}
	if len(cur) > 0 {
		groups = append(groups, cur)
	}
	return groups
}

// isSpace reports whether c separates a websearch query's items.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
