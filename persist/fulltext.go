package persist

import (
	"strings"
	"unicode"

	"github.com/contextd/contextd/index/query"
)

// Types shared by full-text indexing (IndexSource) and native full-text
// search (NativeFullText); the interfaces are in contract.go.

// IndexDoc is an entry as a full-text index sees it: read without any
// access restriction, together with every grant, so the index can hold the
// access fields it filters on.
type IndexDoc struct {
	Entry
	Grants []Grant
	// Summarized says the entry has a non-empty summary; it is set where
	// Summary is not read (AccessDocs, ScanAccessDocs) too, for the
	// catalogs' get_statistics figures.
	Summarized bool
	// NodeCount is the number of the entry's node summaries (the index
	// tree's, get_statistics' index_tree.node_count).
	NodeCount int
}

// Full-text search modes of fts_search_context.
const (
	FullTextMatch   = "match"
	FullTextPrefix  = "prefix"
	FullTextPhrase  = "phrase"
	FullTextBoolean = "boolean"
)

// FullTextQuery asks a database's own full-text engine (SQLite FTS5,
// PostgreSQL tsvector) for the best Limit readable entries matching Query
// in Mode and Filter.
type FullTextQuery struct {
	Filter
	Query     string
	Mode      string // FullTextMatch, FullTextPrefix, FullTextPhrase or FullTextBoolean
	Language  string // FTS_LANGUAGE
	Limit     int
	Highlight bool // fill FullTextHit.Highlighted
	Explain   bool // fill FullTextResult.Plan
}

// FullTextHit is one ranked match: higher Score is better.
type FullTextHit struct {
	ID          string
	Score       float64
	Highlighted string // the full text with <mark>…</mark> around matches
}

// FullTextResult is the ranked answer of a FullTextQuery, best first (score
// DESC, id DESC). Degraded reports that a boolean query was not valid in
// the engine's grammar and was run as a sanitized match query instead.
type FullTextResult struct {
	Hits     []FullTextHit
	Degraded bool
	Plan     string
}

// QueryTerm is one unit of a match or prefix query after the query
// transform of the requirements (C.7, R-351): a word or fragment, or the
// inside of a quoted phrase. Every backend turns the same terms into its
// own query language, so both search backends read a query alike.
type QueryTerm struct {
	Text   string
	Quoted bool // came from a "quoted phrase"
}

// operatorWordLanguages are the FTS languages whose operator barewords
// (and, or, not) are dropped from match and prefix queries.
var operatorWordLanguages = map[string]bool{"english": true, "hindi": true, "russian": true}

func isOperatorWord(s, language string) bool {
	if !operatorWordLanguages[language] {
		return false
	}
	switch len(s) {
	case 2, 3:
		l := strings.ToLower(s)
		return l == "and" || l == "or" || l == "not"
	}
	return false
}

// MatchTerms applies the match-mode transform: quoted phrases are kept,
// other tokens are split on '"' with '-' read as a space, operator words
// are dropped for the languages that have them. The terms are ANDed; no
// terms means no rows.
func MatchTerms(q, language string) []QueryTerm {
	return terms(q, language, func(t string) []string {
		frags := strings.Split(t, `"`)
		for i, f := range frags {
			frags[i] = strings.TrimSpace(strings.ReplaceAll(f, "-", " "))
		}
		return frags
	})
}

// PrefixTerms applies the prefix-mode transform: each word (trailing '*'
// stripped, split on '"', '-' and spaces) is a prefix; a quoted phrase is
// a phrase whose last word is a prefix. Operator words are dropped.
func PrefixTerms(q, language string) []QueryTerm {
	return terms(q, language, func(t string) []string {
		words := strings.FieldsFunc(strings.TrimRight(t, "*"), func(r rune) bool { return r == '"' || r == '-' || unicode.IsSpace(r) })
		for i, w := range words {
			words[i] = strings.TrimRight(w, "*")
		}
		return words
	})
}

// terms keeps the quoted phrases of q that are not blank and splits the
// other tokens into words, dropping empty words and operator words.
func terms(q, language string, split func(string) []string) []QueryTerm {
	toks, quoted := query.Fields(q)
	var out []QueryTerm
	for i, t := range toks {
		if quoted[i] {
			if strings.TrimSpace(t) != "" {
				out = append(out, QueryTerm{Text: t, Quoted: true})
			}
			continue
		}
		for _, w := range split(t) {
			if w != "" && !isOperatorWord(w, language) {
				out = append(out, QueryTerm{Text: w})
			}
		}
	}
	return out
}
