package kchunk

import (
	"unicode"
	"unicode/utf8"
)

// This file is a cl100k_base encoder over the ranks of tiktoken-go-loader:
// a hand-written pre-tokeniser equivalent to the tiktoken pattern (see
// cl100kPattern) and the byte-pair merge, with a per-call cache of pieces.
// tiktoken-go computes the same ids (TestEncoderOracle and FuzzEncoder
// compare every id) but runs the pattern through regexp2 and converts
// the text to runes per call: 2.9 MB/s on this machine, which made
// chunking a 470 kB text take 1.5–4.4 s. Words repeat, so caching their
// merges makes the counts the chunkers ask for again and again cheap.

// pieceEnd returns the end of the pre-tokeniser piece starting at i, the
// first alternative of cl100kPattern that matches there, with the
// pattern's greedy and backtracking semantics:
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d) | [^\r\n\p{L}\p{N}]?\p{L}+ | \p{N}{1,3} |
//	 ?[^\s\p{L}\p{N}]+[\r\n]* | \s*[\r\n]+ | \s+(?!\S) | \s+
func pieceEnd(s string, i int) int {
	r, n := utf8.DecodeRuneInString(s[i:])
	// 's 't 're 've 'm 'll 'd, case-insensitive.
	if r == '\'' && i+1 < len(s) {
		for _, suf := range [...]string{"s", "t", "re", "ve", "m", "ll", "d"} {
			if hasPrefixFold(s[i+1:], suf) {
				return i + 1 + len(suf)
			}
		}
	}
	// [^\r\n\p{L}\p{N}]?\p{L}+
	if unicode.IsLetter(r) {
		return scan(s, i, unicode.IsLetter)
	}
	if r != '\r' && r != '\n' && !unicode.IsNumber(r) && i+n < len(s) {
		if r2, _ := utf8.DecodeRuneInString(s[i+n:]); unicode.IsLetter(r2) {
			return scan(s, i+n, unicode.IsLetter)
		}
	}
	// \p{N}{1,3}
	if unicode.IsNumber(r) {
		j := i
		for k := 0; k < 3 && j < len(s); k++ {
			r2, m := utf8.DecodeRuneInString(s[j:])
			if !unicode.IsNumber(r2) {
				break
			}
			j += m
		}
		return j
	}
	//  ?[^\s\p{L}\p{N}]+[\r\n]*
	start := i
	if r == ' ' {
		start = i + 1
	}
	for _, from := range [...]int{start, i} {
		if from < len(s) {
			if j := scan(s, from, isSymbol); j > from {
				for j < len(s) && (s[j] == '\r' || s[j] == '\n') {
					j++
				}
				return j
			}
		}
	}
	// White space: \s*[\r\n]+ ends after the run's last line break;
	// \s+(?!\S) leaves the run's last character to the next piece when
	// the run is followed by text; \s+ takes the run.
	w := scan(s, i, unicode.IsSpace)
	for j := w - 1; j >= i; j-- {
		if s[j] == '\r' || s[j] == '\n' {
			return j + 1
		}
	}
	if w < len(s) {
		_, last := utf8.DecodeLastRuneInString(s[i:w])
		if w-last > i {
			return w - last
		}
	}
	return w
}

func isSymbol(r rune) bool {
	return !unicode.IsSpace(r) && !unicode.IsLetter(r) && !unicode.IsNumber(r)
}

// scan returns the end of the run of runes from i that satisfy f.
func scan(s string, i int, f func(rune) bool) int {
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !f(r) {
			break
		}
		i += n
	}
	return i
}

// hasPrefixFold: s starts with the ASCII lower-case word p, in any case.
func hasPrefixFold(s, p string) bool {
	if len(s) < len(p) {
		return false
	}
	for k := 0; k < len(p); k++ {
		if c := s[k] | 0x20; c != p[k] {
			return false
		}
	}
	return true
}

// merge runs the byte-pair merge on one piece and returns the byte
// length of each token (tiktoken's byte_pair_merge: repeatedly join the
// adjacent pair of lowest rank).
func (t *Tokenizer) merge(piece string) []uint16 {
	if _, ok := t.ranks[piece]; ok || len(piece) == 1 {
		return []uint16{uint16(len(piece))}
	}
	if len(piece) > longPiece {
		return t.mergeLong(piece)
	}
	return t.mergeScan(piece)
}

// mergeScan is merge by rescanning the piece after every join.
func (t *Tokenizer) mergeScan(piece string) []uint16 {
	const none = int(^uint(0) >> 1)
	b := make([]int, len(piece)+1) // token boundaries
	for i := range b {
		b[i] = i
	}
	rank := func(i int) int {
		if i+2 < len(b) {
			if r, ok := t.ranks[piece[b[i]:b[i+2]]]; ok {
				return r
			}
		}
		return none
	}
	ranks := make([]int, len(b))
	for i := range ranks {
		ranks[i] = rank(i)
	}
	for len(b) > 2 {
		best, at := none, -1
		for i := 0; i < len(b)-2; i++ {
			if ranks[i] < best {
				best, at = ranks[i], i
			}
		}
		if at < 0 {
			break
		}
		b = append(b[:at+1], b[at+2:]...)
		ranks = append(ranks[:at+1], ranks[at+2:]...)
		ranks[at] = rank(at)
		if at > 0 {
			ranks[at-1] = rank(at - 1)
		}
	}
	out := make([]uint16, len(b)-1)
	for i := range out {
		out[i] = uint16(b[i+1] - b[i])
	}
	return out
}

// maxCached bounds a pieceCache: a document of random strings must not
// grow it without end. 64k pieces hold the vocabulary of a long book.
const maxCached = 1 << 16

// pieceCache maps a piece to its token lengths within one Split call.
type pieceCache map[string][]uint16

// walk calls f with the end offset of every token of s, in order, until
// f returns false.
func (t *Tokenizer) walk(s string, cache pieceCache, f func(end int) bool) {
	for i := 0; i < len(s); {
		e := pieceEnd(s, i)
		piece := s[i:e]
		lens, ok := cache[piece]
		if !ok {
			lens = t.merge(piece)
			if cache != nil && len(cache) < maxCached {
				cache[piece] = lens
			}
		}
		at := i
		for _, l := range lens {
			at += int(l)
			if !f(at) {
				return
			}
		}
		i = e
	}
}
