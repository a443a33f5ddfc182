package wordvec

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Tokens calls fn with each token of text: lower-cased runs of Unicode
// letters, marks and digits. An apostrophe (' or ’) between letters joins
// a word, and simple English contractions expand the way GloVe's corpus
// was tokenised, to whole words: n't → not (can't → can not, won't →
// will not), 're → are, 've → have, 'll → will, 'm → am, 'd → would; 's is
// dropped (possessive or "is", a stop word either way). Any other
// apostrophe splits the word.
func Tokens(text string, fn func(tok string)) {
	scan(text, nil, func(tok []byte) { fn(string(tok)) })
}

// scan is Tokens without allocations: tok is valid during the call only,
// buf is scratch space returned for reuse. Embedding reads every stored
// text and, through the blend reranker, 100 passages a search; decoding
// in place instead of through []rune and strings.ToLower made the
// reranker's embedding of 100 passages of 2,000 characters about 5 times
// faster (BenchmarkBlend, 33 ms before).
func scan(text string, buf []byte, fn func(tok []byte)) []byte {
	for i := 0; i < len(text); {
		r, size := decode(text, i)
		if !isWord(r) {
			i += size
			continue
		}
		buf = buf[:0]
		apos, prevLetter := false, false
		j := i
		for j < len(text) {
			r, size := decode(text, j)
			if isWord(r) {
				if r < utf8.RuneSelf {
					if 'A' <= r && r <= 'Z' {
						r += 'a' - 'A'
					}
					buf = append(buf, byte(r))
				} else {
					buf = utf8.AppendRune(buf, unicode.ToLower(r))
				}
				prevLetter = unicode.IsLetter(r)
				j += size
				continue
			}
			if (r == '\'' || r == '\u2019') && prevLetter && j+size < len(text) {
				if next, _ := decode(text, j+size); unicode.IsLetter(next) {
					buf = append(buf, '\'')
					apos, prevLetter = true, false
					j += size
					continue
				}
			}
			break
		}
		i = j
		if !apos {
			fn(buf)
			continue
		}
		contraction(string(buf), func(s string) { fn([]byte(s)) })
	}
	return buf
}

// decode is the rune at text[i] and its length; an invalid byte is
// utf8.RuneError of length 1, as ranging over a string yields.
func decode(text string, i int) (rune, int) {
	if c := text[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(text[i:])
}

func isWord(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
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
