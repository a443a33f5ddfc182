package builtin

import (
	"github.com/contextd/contextd/index/token"
)

// The lexical reranker's tokenization, shared by queries and passages so
// that both sides always normalize a word the same way. (The embedder and
// the summarizer of this package tokenize their own way.)
//
// Tokens are the full-text index's (package index/token): the split and
// folding of SQLite FTS5's unicode61 with remove_diacritics 2, so
// fmt.Println is fmt and println, and résumé is resume, for the reranker as
// for both search backends. A token is then passed through token.Stem,
// the Snowball English (Porter2) stemmer the in-process full-text index
// applies, so that the reranker and the index conflate the same words.
// The lexical scanner caches stems per call: Snowball costs about a
// microsecond a word.
//
// Stems are index keys, not words: only their equality matters.

// tokenize calls emit with each normalized (folded, unstemmed) token of
// text, in order. buf is scratch space, returned for reuse; the slice
// passed to emit is only valid during the call.
func tokenize(text string, buf []byte, emit func(tok []byte)) []byte {
	return token.Scan(text, buf, func(_, _ int, term []byte) { emit(term) })
}

// queryStopwords are dropped from queries (never needed in passages: a passage
// token only counts when it matches a query term). The list is small on
// purpose: negations and question-bearing content words stay.
var queryStopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range []string{
		"a", "about", "all", "also", "an", "and", "any", "are", "as", "at",
		"be", "been", "being", "but", "by", "can", "could", "did", "do", "does",
		"for", "from", "had", "has", "have", "he", "her", "here", "his", "how",
		"i", "if", "in", "into", "is", "it", "its", "me", "my", "of", "on",
		"or", "our", "she", "should", "so", "some", "such", "than", "that",
		"the", "their", "them", "then", "there", "these", "they", "this",
		"those", "to", "us", "was", "we", "were", "what", "when", "where",
		"which", "while", "who", "whom", "why", "will", "with", "would",
		"you", "your",
	} {
		m[w] = true
	}
	return m
}()
