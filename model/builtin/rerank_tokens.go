package builtin

import (
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/english"
)

// The lexical reranker's tokenization, shared by queries and passages so
// that both sides always normalize a word the same way. (The embedder and
// the summarizer of this package tokenize their own way.)
//
// A token is a maximal run of Unicode letters and digits (combining marks
// are kept inside a token but never start one), lower-cased rune by rune
// with unicode.ToLower, then passed through stem. Everything else separates
// tokens. Invalid UTF-8 bytes separate tokens.
//
// stem is the Snowball English (Porter2) stemmer, the one the in-process
// full-text index applies, so that the reranker and the index conflate the
// same words. The lexical scanner caches stems per call: Snowball costs
// about a microsecond a word.
//
// Stems are index keys, not words: only their equality matters.

// asciiFold maps an ASCII byte to its lower-case form when it is a letter or
// a digit, and to 0 when it separates tokens.
var asciiFold = func() (t [utf8.RuneSelf]byte) {
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c)
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = byte(c)
		t[c-'a'+'A'] = byte(c)
	}
	return t
}()

// tokenize calls emit with each normalized (case-folded, unstemmed) token of
// text, in order. buf is scratch space, returned for reuse; the slice
// passed to emit is only valid during the call.
func tokenize(text string, buf []byte, emit func(tok []byte)) []byte {
	buf = buf[:0]
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			if f := asciiFold[c]; f != 0 {
				buf = append(buf, f)
				i++
				continue
			}
			i++
		} else {
			r, size := utf8.DecodeRuneInString(text[i:])
			i += size
			if r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r) || (len(buf) > 0 && unicode.Is(unicode.Mn, r))) {
				buf = utf8.AppendRune(buf, unicode.ToLower(r))
				continue
			}
		}
		if len(buf) > 0 {
			emit(buf)
			buf = buf[:0]
		}
	}
	if len(buf) > 0 {
		emit(buf)
	}
	return buf
}

// stem applies the Snowball stemmer described above to the lower-cased token
// b, in place, and returns the shortened slice.
func stem(b []byte) []byte {
	if len(b) < 3 {
		return b
	}
	env := snowballstem.NewEnv(string(b))
	english.Stem(env)
	return append(b[:0], env.Current()...)
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
