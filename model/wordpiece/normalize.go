package wordpiece

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// The character classes of BERT's basic tokenizer, as defined by
// transformers' tokenization_bert.py and tokenizers' bert normalizer and
// pre-tokenizer (the two agree on these).

// isWhitespace: space, tab, newline, carriage return and category Zs
// (clean_text maps each to a space).
func isWhitespace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\r':
		return true
	}
	return r > 0x7f && unicode.Is(unicode.Zs, r)
}

// isControl: any category C character (Cc, Cf, Cs, Co and unassigned
// Cn) except tab, newline and carriage return, which count as
// whitespace. clean_text drops them, so a soft hyphen (U+00AD, Cf)
// vanishes.
func isControl(r rune) bool {
	switch r {
	case '\t', '\n', '\r':
		return false
	}
	if r < 0x80 {
		return r < 0x20 || r == 0x7f
	}
	if unicode.Is(unicode.C, r) {
		return true
	}
	// Go has no table of unassigned code points (Cn): a rune in no
	// category is one.
	return !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z)
}

// isPunct: every ASCII character that is neither a letter, a digit nor
// a space (so $, +, <, =, >, ^, `, |, ~ count though Unicode calls them
// symbols), and every character of category P.
func isPunct(r rune) bool {
	if r >= 33 && r <= 47 || r >= 58 && r <= 64 || r >= 91 && r <= 96 || r >= 123 && r <= 126 {
		return true
	}
	return r > 0x7f && unicode.IsPunct(r)
}

// isCJK: the CJK Unified Ideographs blocks BERT isolates (not Hangul,
// Hiragana or Katakana, which are written with spaces or are split by
// WordPiece).
func isCJK(r rune) bool {
	return r >= 0x4E00 && r <= 0x9FFF || r >= 0x3400 && r <= 0x4DBF ||
		r >= 0x20000 && r <= 0x2A6DF || r >= 0x2A700 && r <= 0x2B73F ||
		r >= 0x2B740 && r <= 0x2B81F || r >= 0x2B820 && r <= 0x2CEAF ||
		r >= 0xF900 && r <= 0xFAFF || r >= 0x2F800 && r <= 0x2FA1F
}

// step is one normalization of the text before pre-tokenization.
type step func(string) string

// cleanText drops NUL, U+FFFD and control characters and turns every
// whitespace character into a space.
func cleanText(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == 0 || r == utf8.RuneError || isControl(r):
		case isWhitespace(r):
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// spaceCJK puts spaces around every CJK ideograph, so each becomes a
// word of its own.
func spaceCJK(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if isCJK(r) {
			b.WriteByte(' ')
			b.WriteRune(r)
			b.WriteByte(' ')
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// stripAccents decomposes (NFD) and drops the nonspacing marks
// (category Mn), so "é" becomes "e" and "ï" becomes "i".
func stripAccents(s string) string {
	d := norm.NFD.String(s)
	return dropMarks(d)
}

// dropMarks drops category Mn without decomposing first (the
// StripAccents normalizer of tokenizers.json, which follows an NFD
// step).
func dropMarks(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if r < 0x300 || !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// lower is Unicode lower-casing rune by rune, as Rust's char::to_lowercase
// does for the tokenizers library, including its one multi-rune mapping:
// U+0130 (capital I with dot above) becomes "i" and U+0307.
func lower(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if r == 0x130 {
			b.WriteString("i\u0307")
			continue
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// preTokenize splits normalized text into words: at whitespace, and
// around every punctuation character, which becomes a word of its own.
func preTokenize(s string, splitPunct bool, emit func(word string)) {
	start := -1
	for i, r := range s {
		switch {
		case unicode.IsSpace(r):
			if start >= 0 {
				emit(s[start:i])
				start = -1
			}
		case splitPunct && isPunct(r):
			if start >= 0 {
				emit(s[start:i])
				start = -1
			}
			emit(s[i : i+utf8.RuneLen(r)])
		default:
			if start < 0 {
				start = i
			}
		}
	}
	if start >= 0 {
		emit(s[start:])
	}
}
