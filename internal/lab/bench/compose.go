package bench

import (
	"math/rand/v2"
	"slices"
	"strings"
)

// Composition of the entries beyond the Go tree's doc-comment paragraphs
// (about 107k of at least six words; the acceptance targets are measured
// at 1M entries). Entry i (i at or above the paragraph count) is 2 to 5
// distinct sentences of the pool (testcorpus.SentencesOf the paragraphs:
// 115,083 distinct sentences of at least five words, about 88 bytes on
// average), drawn by a PCG seeded with (composeSeed, i): one sentence
// anywhere and the others within composeWindow sentences of it in walk
// order, so an entry stays within one file or package as a real
// paragraph does, and are joined in walk order. Words and term
// frequencies are the tree's; only the combinations are new, and they
// are nearly all distinct (the real paragraphs repeat a quarter of
// theirs).
//
// Length: 76 % of the real paragraphs are one sentence (mean 125 bytes,
// median 92), but a composed entry needs two sentences to be new text
// rather than a copy of one; 2-5 sentences give a mean of 319
// bytes, closer to the 0.4 KB entries the acceptance targets were set
// against than the real paragraphs are. TestLoadCorpusComposed logs both
// means.
const (
	composeSeed   = 0x636f6e7465787464 // "contextd"
	composeWindow = 32
	composeMin    = 2
	composeMax    = 5
	// minPool is the fewest sentences composition accepts: below it,
	// entries would repeat each other.
	minPool = 1000
)

// compose returns composed entry i drawn from pool (len(pool) >= minPool).
// It depends only on i and pool, so entries are the same at every size
// and can be made on demand, in any order.
func compose(pool []string, i int) string {
	r := rand.New(rand.NewPCG(composeSeed, uint64(i)))
	k := composeMin + r.IntN(composeMax-composeMin+1)
	first := r.IntN(len(pool))
	lo, hi := max(0, first-composeWindow), min(len(pool), first+composeWindow+1)
	picked := make([]int, 1, composeMax)
	picked[0] = first
	for len(picked) < k {
		if j := lo + r.IntN(hi-lo); !slices.Contains(picked, j) {
			picked = append(picked, j)
		}
	}
	slices.Sort(picked)
	var b strings.Builder
	for n, j := range picked {
		if n > 0 {
			b.WriteByte(' ')
		}
		s := pool[j]
		b.WriteString(s)
		// The split at '.', '!' or '?' dropped the mark; the last
		// sentence of a paragraph kept its own.
		if c := s[len(s)-1]; c != '.' && c != '!' && c != '?' {
			b.WriteByte('.')
		}
	}
	return b.String()
}
