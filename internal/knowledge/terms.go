package knowledge

import (
	"slices"
	"sort"
	"sync"

	"github.com/contextd/contextd/index/token"
)

// Chunks keep their two keyword streams (keyword.go) as sorted slices of
// packed (term id, count) pairs over one vocabulary shared by the whole
// index, not as maps: on 20,250 paragraphs of Go package documentation
// (testdata/paraphrase's distractors, repeated) a map of term counts per
// chunk cost 36.8 MiB of heap and the English stream's map 32.8 MiB
// more; both streams packed, with the vocabulary, cost 11.3 MiB (8 bytes
// a distinct term), a third of the one map the index held before.

// vocab interns the terms and stems of every indexed chunk. Ids are
// never reused or dropped until the index is rebuilt at the next start:
// the vocabulary grows with the distinct tokens uploaded since then
// (about 60 bytes each), not with the number of chunks.
type vocab struct {
	mu  sync.RWMutex
	ids map[string]uint32
	// stems caches token.Stem by term ("" for a stop word): Snowball
	// costs about a microsecond a word, and a restart indexes every chunk
	// again.
	stems map[string]string
}

func newVocab() *vocab { return &vocab{ids: map[string]uint32{}, stems: map[string]string{}} }

// maxStemCache bounds vocab.stems.
const maxStemCache = 1 << 18

// englishStems counts the English stream of a chunk's term counts.
func (v *vocab) englishStems(terms map[string]int) map[string]int {
	out := make(map[string]int, len(terms))
	v.mu.Lock()
	defer v.mu.Unlock()
	for t, n := range terms {
		s, ok := v.stems[t]
		if !ok {
			if !englishStop[t] {
				s = token.Stem(t)
			}
			if len(v.stems) >= maxStemCache {
				clear(v.stems) // identifiers and hashes must not grow it forever
			}
			v.stems[t] = s
		}
		if s != "" {
			out[s] += n
		}
	}
	return out
}

// noTerm is the id of a term no chunk holds (ids count up from 0, so no
// vocabulary reaches it).
const noTerm = ^uint32(0)

// lookup returns term's id, or noTerm.
func (v *vocab) lookup(term string) uint32 {
	v.mu.RLock()
	defer v.mu.RUnlock()
	if id, ok := v.ids[term]; ok {
		return id
	}
	return noTerm
}

// counts packs m's terms, interning them, into a sorted termCounts.
func (v *vocab) counts(m map[string]int) termCounts {
	out := make(termCounts, 0, len(m))
	v.mu.Lock()
	for t, n := range m {
		id, ok := v.ids[t]
		if !ok {
			id = uint32(len(v.ids))
			v.ids[t] = id
		}
		out = append(out, uint64(id)<<32|uint64(min(n, int(^uint32(0)))))
	}
	v.mu.Unlock()
	slices.Sort(out)
	return out
}

// termCounts are a chunk's (term id << 32 | count) pairs, by id.
type termCounts []uint64

// get returns the count of term id (0 when absent). noTerm is searched
// like any other id on purpose: the vocabulary holds the words of every
// container, readable or not, and a short cut for unknown words would let
// a long query's time over a large readable container tell which words
// exist in documents the caller may not read.
func (c termCounts) get(id uint32) int {
	i := sort.Search(len(c), func(i int) bool { return uint32(c[i]>>32) >= id })
	if i < len(c) && uint32(c[i]>>32) == id {
		return int(uint32(c[i]))
	}
	return 0
}

// indexChunk tokenizes c into its two streams; buf is scratch space,
// returned for reuse.
func (v *vocab) indexChunk(c Chunk, buf []byte) (indexedChunk, []byte) {
	terms := map[string]int{}
	n := 0
	buf = token.Scan(c.Text, buf, func(_, _ int, term []byte) {
		terms[string(term)]++
		n++
	})
	return indexedChunk{Chunk: c, terms: v.counts(terms), stems: v.counts(v.englishStems(terms)), n: n}, buf
}
