package knowledge

import (
	"math"
	"slices"
	"sort"
	"sync"

	"github.com/contextd/contextd/index/token"
)

// Chunks keep their exact keyword stream (keyword.go) as a sorted slice
// of packed (term id, count) pairs over one vocabulary shared by the
// whole index, not as maps: on 20,250 paragraphs of Go package
// documentation (testdata/paraphrase's distractors, repeated) a map of
// term counts per chunk cost 36.8 MiB of heap and the English stream's
// map 32.8 MiB more; both streams packed, with the vocabulary, cost 11.3
// MiB (8 bytes a distinct term).
//
// The English stream is not stored: a stem's count in a chunk is the sum
// of the counts of the chunk's terms with that stem, and the vocabulary
// knows which terms those are (stemTerms), so a query reads it from the
// exact stream (stemStream). Storing it packed cost as much again as the
// exact stream: on 100 Markdown files of 1 MB (198,000 chunks of words
// drawn from 50,000) the English stream held as much as the exact one,
// its stems mostly equal to the terms.

// vocab interns the terms and stems of every indexed chunk. Ids are
// never reused or dropped until the index is rebuilt at the next start:
// the vocabulary grows with the distinct tokens uploaded since then
// (tens of bytes each), not with the number of chunks.
type vocab struct {
	mu  sync.RWMutex
	ids map[string]uint32
	// stemOf is, by id, the id of a term's English stem (noTerm for a
	// stop word; stemUnset for an id interned only as a stem so far).
	// Entries are written once, before the id reaches any chunk, and
	// only appended after: a reader may keep the slice it read under mu.
	stemOf []uint32
	// stemTerms lists, by stem id, the term ids with that stem.
	stemTerms map[uint32][]uint32
}

func newVocab() *vocab { return &vocab{ids: map[string]uint32{}, stemTerms: map[uint32][]uint32{}} }

// noTerm is the id of a term no chunk holds (ids count up from 0, so no
// vocabulary reaches it).
const noTerm = ^uint32(0)

// stemUnset marks an id whose stem is not computed yet (vocab.stemOf).
const stemUnset = noTerm - 1

// intern returns s's id, adding it; the caller holds v.mu.
func (v *vocab) intern(s string) uint32 {
	id, ok := v.ids[s]
	if !ok {
		id = uint32(len(v.ids))
		v.ids[s] = id
		v.stemOf = append(v.stemOf, stemUnset)
	}
	return id
}

// termID interns term as a chunk's term, with its English stem (Snowball
// costs about a microsecond a word: it runs once per distinct term); the
// caller holds v.mu.
func (v *vocab) termID(term string) uint32 {
	id := v.intern(term)
	if v.stemOf[id] != stemUnset {
		return id
	}
	s := noTerm
	if !englishStop[term] {
		if st := token.Stem(term); st != "" {
			s = v.intern(st)
		}
	}
	v.stemOf[id] = s
	if s != noTerm {
		v.stemTerms[s] = append(v.stemTerms[s], id)
	}
	return id
}

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
	var sc chunkScratch
	return v.countsWith(m, &sc)
}

// countsWith is counts with sc's pairs as scratch space, packed at the
// end of sc.pend.
func (v *vocab) countsWith(m map[string]int, sc *chunkScratch) termCounts {
	pairs := sc.pairs[:0]
	v.mu.Lock()
	for t, n := range m {
		pairs = append(pairs, uint64(v.termID(t))<<32|uint64(min(n, int(^uint32(0)))))
	}
	v.mu.Unlock()
	slices.Sort(pairs)
	tc, pend := appendCounts(sc.pend, pairs)
	sc.pairs, sc.pend = pairs, pend
	return tc
}

// termCounts are a chunk's term counts by term id, in one of two
// layouts. Narrow, one uint32 a term, id<<8 | count, when every id is
// below 1<<24 and every count at most 255: the chunks of any vocabulary
// under 16.7 million words, whose 512-token chunks rarely repeat a word
// 256 times. Wide otherwise, two uint32s a term, id then count. Either
// is sorted by id. The narrow layout halves what the largest part of a
// chunk's resident cost was (8 bytes a distinct term, as id<<32 | count
// in a uint64): on 100 Markdown files of 1 MB (198,000 chunks of about
// 111 distinct terms) the counts held 176 MB of a heap profile taken
// after the ingestion.
type termCounts struct {
	p    []uint32
	wide bool
}

const (
	narrowIDs   = 1 << 24
	narrowCount = 1<<8 - 1
)

// packCounts lays out pairs (id<<32 | count, sorted) as termCounts.
func packCounts(pairs []uint64) termCounts {
	tc, _ := appendCounts(nil, pairs)
	return tc
}

// appendCounts is packCounts laid out at the end of dst, returned grown:
// the chunks of one document are packed one after another into one
// buffer (chunkScratch.pend), not into an array each.
func appendCounts(dst []uint32, pairs []uint64) (termCounts, []uint32) {
	wide := false
	for _, tc := range pairs {
		if tc>>32 >= narrowIDs || uint32(tc) > narrowCount {
			wide = true
			break
		}
	}
	at := len(dst)
	for _, tc := range pairs {
		if wide {
			dst = append(dst, uint32(tc>>32), uint32(tc))
		} else {
			dst = append(dst, uint32(tc>>32)<<8|uint32(tc))
		}
	}
	return termCounts{p: dst[at:len(dst):len(dst)], wide: wide}, dst
}

// len is the number of distinct terms.
func (c termCounts) len() int {
	if c.wide {
		return len(c.p) / 2
	}
	return len(c.p)
}

// at returns the i-th term id and its count.
func (c termCounts) at(i int) (uint32, int) {
	if c.wide {
		return c.p[2*i], int(c.p[2*i+1])
	}
	return c.p[i] >> 8, int(c.p[i] & narrowCount)
}

// get returns the count of term id (0 when absent). noTerm is searched
// like any other id on purpose: the vocabulary holds the words of every
// container, readable or not, and a short cut for unknown words would let
// a long query's time over a large readable container tell which words
// exist in documents the caller may not read.
func (c termCounts) get(id uint32) int {
	n := c.len()
	i := sort.Search(n, func(i int) bool { t, _ := c.at(i); return t >= id })
	if i < n {
		if t, k := c.at(i); t == id {
			return k
		}
	}
	return 0
}

// kwStream reads one keyword stream's counts of a chunk: the exact
// stream's as stored, the English stream's summed over the terms of each
// stem (the stems a query asks for, listed by stemStream).
type kwStream struct {
	stemmed bool
	terms   map[uint32][]uint32 // stem id -> its term ids (stemmed only)
	stemOf  []uint32            // the vocabulary's, read under its lock
}

// exactStream is the exact stream.
var exactStream = &kwStream{}

// stemStream is the English stream for queries of the stems with ids
// (noTerm and unknown ids count 0 everywhere).
func (v *vocab) stemStream(ids []uint32) *kwStream {
	s := &kwStream{stemmed: true, terms: make(map[uint32][]uint32, len(ids))}
	v.mu.RLock()
	defer v.mu.RUnlock()
	for _, id := range ids {
		if ts, ok := v.stemTerms[id]; ok {
			s.terms[id] = slices.Clone(ts)
		}
	}
	s.stemOf = v.stemOf
	return s
}

// count is the chunk's count of term (or stem) id in the stream.
func (s *kwStream) count(c *indexedChunk, id uint32) int {
	if !s.stemmed {
		return c.terms.get(id)
	}
	n := 0
	for _, t := range s.terms[id] {
		n += c.terms.get(t)
	}
	return n
}

// each calls f once for each distinct term (or stem) id of the stream
// the chunk holds, in no particular order for the English stream; seen
// is scratch space for it, returned for reuse.
func (s *kwStream) each(c *indexedChunk, seen map[uint32]bool, f func(id uint32)) map[uint32]bool {
	if !s.stemmed {
		for i := range c.terms.len() {
			t, _ := c.terms.at(i)
			f(t)
		}
		return seen
	}
	if seen == nil {
		seen = map[uint32]bool{}
	}
	clear(seen)
	for i := range c.terms.len() {
		t, _ := c.terms.at(i)
		if int(t) >= len(s.stemOf) {
			continue // interned after the stream was read: no query stem
		}
		if st := s.stemOf[t]; st != noTerm && st != stemUnset && !seen[st] {
			seen[st] = true
			f(st)
		}
	}
	return seen
}

// chunkScratch is what indexing one chunk after another reuses: the
// tokenizer's buffer, the term count map and the sorted pairs (a
// document of 1 MB is about 2,000 chunks, and each made its map and
// pairs anew), and pend, where the chunks' term counts are packed one
// after another until packTerms gives them one array of their exact size.
type chunkScratch struct {
	buf   []byte
	terms map[string]int
	pairs []uint64
	pend  []uint32
}

// indexChunk tokenizes c into its exact stream, with sc's scratch space
// (nil: its own). The result holds c's text as it is (indexChunks
// decides what a chunk of the index keeps).
func (v *vocab) indexChunk(c Chunk, sc *chunkScratch) indexedChunk {
	if sc == nil {
		sc = &chunkScratch{}
	}
	if sc.terms == nil {
		sc.terms = map[string]int{}
	}
	clear(sc.terms)
	n := 0
	sc.buf = token.Scan(c.Text, sc.buf, func(_, _ int, term []byte) {
		sc.terms[string(term)]++
		n++
	})
	return indexedChunk{str: c.Text, start: int32(min(max(c.Start, 0), math.MaxInt32)), end: int32(min(max(c.End, 0), math.MaxInt32)),
		terms: v.countsWith(sc.terms, sc), n: int32(min(n, math.MaxInt32))}
}
