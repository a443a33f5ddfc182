package wordvec

import (
	"strings"
	"unicode"
)

// Tokens calls fn with each token of text: lower-cased runs of Unicode
// letters, marks and digits. An apostrophe (' or ’) between letters joins
// a word, and simple English contractions expand the way GloVe's corpus
// was tokenised, to whole words: n't → not (can't → can not, won't →
// will not), 're → are, 've → have, 'll → will, 'm → am, 'd → would; 's is
// dropped (possessive or "is", a stop word either way). Any other
// apostrophe splits the word.
func Tokens(text string, fn func(tok string)) {
	rs := []rune(text)
	isWord := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) }
	isApos := func(r rune) bool { return r == '\'' || r == '\u2019' }
	for i := 0; i < len(rs); {
		if !isWord(rs[i]) {
			i++
			continue
		}
		j := i
		for j < len(rs) && (isWord(rs[j]) || (isApos(rs[j]) && j+1 < len(rs) && unicode.IsLetter(rs[j+1]) && j > i && unicode.IsLetter(rs[j-1]))) {
			j++
		}
		word := strings.ToLower(strings.ReplaceAll(string(rs[i:j]), "\u2019", "'"))
		i = j
		if !strings.ContainsRune(word, '\'') {
			fn(word)
			continue
		}
		contraction(word, fn)
	}
}

func contraction(word string, fn func(string)) {
	if base, ok := strings.CutSuffix(word, "n't"); ok && !strings.Contains(base, "'") {
		switch base {
		case "ca":
			base = "can"
		case "wo":
			base = "will"
		case "sha":
			base = "shall"
		case "ai":
			base = "is"
		}
		if base != "" {
			fn(base)
		}
		fn("not")
		return
	}
	k := strings.LastIndexByte(word, '\'')
	base, suffix := word[:k], word[k+1:]
	for _, p := range strings.Split(base, "'") {
		if p != "" {
			fn(p)
		}
	}
	switch suffix {
	case "s":
	case "re":
		fn("are")
	case "ve":
		fn("have")
	case "ll":
		fn("will")
	case "m":
		fn("am")
	case "d":
		fn("would")
	default:
		fn(suffix)
	}
}
