package kchunk

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// span is a byte range [start, end) of the source text.
type span struct{ start, end int }

// abbreviations end with a period that does not end a sentence (lower
// case, without the period). The list covers the golden rules the
// requirements test (B3: "Dr. Smith works for the U.S. government." is one
// sentence) and the common English titles and Latin forms.
var abbreviations = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "sr": true,
	"jr": true, "st": true, "mt": true, "gen": true, "col": true, "capt": true,
	"lt": true, "sgt": true, "rev": true, "hon": true, "gov": true, "sen": true,
	"rep": true, "vs": true, "etc": true, "e.g": true, "i.e": true, "cf": true,
	"al": true, "approx": true, "inc": true, "ltd": true, "co": true, "corp": true,
	"no": true, "nos": true, "fig": true, "figs": true, "vol": true, "p": true,
	"pp": true, "ch": true, "sec": true, "ed": true, "eds": true, "est": true,
	"dept": true, "univ": true, "jan": true, "feb": true, "mar": true, "apr": true,
	"jun": true, "jul": true, "aug": true, "sep": true, "sept": true, "oct": true,
	"nov": true, "dec": true, "u.s": true, "u.k": true, "a.m": true, "p.m": true,
}

// sentences splits text into trimmed sentences, returned as byte spans of
// text. It is a rule splitter for English meeting the requirements' cases
// (B3): a sentence ends at a run of '.', '!' or '?' (plus closing quotes or
// brackets) followed by white space and an upper-case letter, a digit or an
// opening quote — unless the period closes a known abbreviation or a
// single-letter initial; "3.14" and "..." followed by lower case do not end
// one. A blank line always ends a sentence (paragraphs, list blocks).
// Every non-space byte of text lies in exactly one span.
func sentences(text string) []span {
	var out []span
	emit := func(a, b int) {
		for a < b {
			r, n := utf8.DecodeRuneInString(text[a:])
			if !unicode.IsSpace(r) {
				break
			}
			a += n
		}
		for b > a {
			r, n := utf8.DecodeLastRuneInString(text[:b])
			if !unicode.IsSpace(r) {
				break
			}
			b -= n
		}
		if a < b {
			out = append(out, span{a, b})
		}
	}
	start := 0
	for i := 0; i < len(text); {
		c := text[i]
		if c == '\n' {
			j := i + 1
			for j < len(text) && (text[j] == ' ' || text[j] == '\t' || text[j] == '\r') {
				j++
			}
			if j < len(text) && text[j] == '\n' {
				emit(start, i)
				start = j
				i = j
				continue
			}
			i++
			continue
		}
		if c != '.' && c != '!' && c != '?' {
			i++
			continue
		}
		j := i
		for j < len(text) && (text[j] == '.' || text[j] == '!' || text[j] == '?') {
			j++
		}
		run := text[i:j]
		for j < len(text) && strings.ContainsRune(`"')]”’»`, rune(text[j])) {
			j++
		}
		if j < len(text) {
			if r, _ := utf8.DecodeRuneInString(text[j:]); r == '”' || r == '’' || r == '»' {
				j += utf8.RuneLen(r)
			}
		}
		if j < len(text) && !isSpaceByte(text[j]) {
			i = j
			continue
		}
		k := j
		for k < len(text) && isSpaceByte(text[k]) {
			k++
		}
		if k < len(text) && !opensSentence(text[k:]) {
			i = j
			continue
		}
		if run == "." && abbreviationBefore(text[start:i]) && k < len(text) {
			i = j
			continue
		}
		emit(start, j)
		start = j
		i = j
	}
	emit(start, len(text))
	return out
}

func isSpaceByte(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\f' || b == '\v'
}

// opensSentence: the next sentence starts with an upper-case letter, a
// digit, an opening quote or bracket, or a letter of a caseless script.
func opensSentence(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	switch {
	case unicode.IsUpper(r), unicode.IsDigit(r), unicode.IsTitle(r):
		return true
	case strings.ContainsRune(`"'([“‘«*-#>`, r):
		return true
	case unicode.IsLetter(r) && !unicode.IsLower(r):
		return true
	}
	return false
}

// abbreviationBefore reports whether the word before a final period is an
// abbreviation or a single-letter initial ("J. Smith", "U.S.").
func abbreviationBefore(before string) bool {
	w := before
	if i := strings.LastIndexFunc(w, func(r rune) bool { return unicode.IsSpace(r) || r == '(' || r == '"' }); i >= 0 {
		w = w[i+1:]
	}
	w = strings.ToLower(w)
	if abbreviations[w] {
		return true
	}
	if utf8.RuneCountInString(w) == 1 {
		r, _ := utf8.DecodeRuneInString(w)
		return unicode.IsLetter(r)
	}
	// Dotted initialisms: "u.s", "e.g", "ph.d".
	return strings.Contains(w, ".") && !strings.ContainsFunc(w, unicode.IsDigit)
}
