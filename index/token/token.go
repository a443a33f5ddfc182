// Package token owns contextd's word tokenization: the split of text into
// index terms shared by the in-process full-text index (package index),
// its highlights and the built-in lexical reranker, made to agree with
// SQLite FTS5's unicode61 tokenizer with remove_diacritics 2, the native
// backend's engine, so that both search backends find the same entries.
//
// A token is a maximal run of token characters: the code points FTS5's
// unicode61 reads as such (letters, digits and private-use characters of
// Unicode 6.1, some combining diacritics, and the code points Unicode 6.1
// left unassigned), plus, beyond FTS5, any combining mark that follows a
// token character (FTS5 splits Devanagari, Arabic or Hebrew words at their
// vowel signs; here they stay whole). Every other character separates
// tokens: punctuation, '_', '.', '/', ':', '@', spaces and invalid UTF-8.
// Each character is folded as FTS5 folds it: lower-cased, and Latin
// letters lose their diacritics (é to e, Å to a, ǖ to u; ø, ł, ß and æ
// are letters of their own and stay).
//
//	token.Scan("Call fmt.Println; see résumé.md", nil, func(start, end int, term []byte) {
//		fmt.Println(start, end, string(term)) // 0 4 call, 5 8 fmt, 9 16 println, ...
//	})
//
// So `fmt.Println` is the terms fmt and println (at consecutive positions,
// so a phrase query for fmt.Println still matches only that sequence),
// `https://docs.example.org/guide` is https, docs, example, org, guide,
// and résumé is resume. Identifiers in camel case stay one term
// (getUserName is getusername), as in FTS5.
//
// The tables (tables.go) are generated from SQLite itself by gen.go;
// TestUnicode61Parity checks every code point against FTS5 again.
package token

import (
	"sort"
	"unicode"
	"unicode/utf8"
)

//go:generate go run gen.go

// ascii maps an ASCII byte to its folded form when it is a token
// character, and to 0 when it separates tokens.
var ascii = func() (t [utf8.RuneSelf]byte) {
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c)
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = byte(c)
		t[c-'a'+'A'] = byte(c)
	}
	return t
}()

// IsTokenChar reports whether FTS5's unicode61 reads r as part of a token.
func IsTokenChar(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 0 && ascii[r] != 0
	}
	i := sort.Search(len(tokenRanges)/2, func(i int) bool { return tokenRanges[2*i+1] >= r })
	return i < len(tokenRanges)/2 && tokenRanges[2*i] <= r
}

// Fold returns what r becomes inside a term, and false when it is dropped
// (a diacritic). r must be a token character.
func Fold(r rune) (rune, bool) {
	if r < utf8.RuneSelf {
		return rune(ascii[r]), true
	}
	i := sort.Search(len(foldKeys), func(i int) bool { return foldKeys[i] >= r })
	if i < len(foldKeys) && foldKeys[i] == r {
		return foldVals[i], foldVals[i] != 0
	}
	return r, true
}

// Scan calls emit with each token of text, in order: its byte range in
// text and its folded term. buf is scratch space, returned for reuse; the
// term passed to emit is only valid during the call. A token whose
// characters are all dropped diacritics has no term and is skipped.
func Scan(text string, buf []byte, emit func(start, end int, term []byte)) []byte {
	buf = buf[:0]
	start, in := 0, false
	flush := func(end int) {
		if in && len(buf) > 0 {
			emit(start, end, buf)
		}
		buf, in = buf[:0], false
	}
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			if f := ascii[c]; f != 0 {
				if !in {
					start, in = i, true
				}
				buf = append(buf, f)
			} else {
				flush(i)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			flush(i)
		case IsTokenChar(r):
			if !in {
				start, in = i, true
			}
			if f, keep := Fold(r); keep {
				buf = utf8.AppendRune(buf, f)
			}
		case in && unicode.Is(unicode.M, r):
			// Beyond FTS5: a vowel sign or other mark stays in its word.
			buf = utf8.AppendRune(buf, r)
		default:
			flush(i)
		}
		i += size
	}
	flush(len(text))
	return buf
}
