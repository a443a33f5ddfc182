package search

import (
	"math"
	"math/rand/v2"
)

// chunkMap is the vector index's bookkeeping of chunk keys (database row
// ids): for each key, the catalog ordinal of its entry and the text range
// a hit on it reports; for each ordinal, its entry's keys.
//
//	m := newChunkMap(0, 0)
//	m.put(42, ord, span{index: 0, start: 0, end: 1500})
//	m.setKeys(ord, []uint64{42})
//	o, s, ok := m.ref(42) // o == ord, s.end == 1500
//	m.keys(ord)           // [42]
//	m.drop(ord)           // before the catalog frees ord
//
// It replaces two maps, chunk key -> {ord uint32; index, start, end int}
// (32 bytes a value) and entry id -> []uint64 (a 40-byte slot, a
// separate 8-byte array per entry, and on a rebuild from SQL a copy of
// the id string): BenchmarkChunkMapMemory (one entry in ten has 2-4
// chunks), 2026-12-03, AMD EPYC 2 cores, go1.26.8: at 10,000 entries 152
// B of heap per entry before, 63 B after; at 100,000, 177 B before, 83 B
// after. Most of what was left was the key map, Go's map of 16-byte
// values (35-57 B a key); the keys now live in pages of consecutive row
// ids (chunkrefs.go): 2026-12-05, same machine, 1.2 chunks an entry, 71.8
// B of heap per entry before and 38.1 after at 1,000,000 entries, 84.8
// and 39.9 at 100,000.
//
// Ordinals are the catalog's (index/catalog): dense, reused after Remove.
// The map holds an ordinal's keys from set until drop, so the caller drops
// an entry's chunks before removing it from the catalog (Apply does), and
// a reused ordinal starts empty. A live id keeps its ordinal.
type chunkMap struct {
	refs chunkRefs // paged (chunkrefs.go)
	// wide holds the ranges that do not fit chunkRef's uint32 fields
	// (their ref's index is wideMark). The server caps a text at
	// MAX_TEXT_CHARS ≤ 2^30 code points, so a chunk index or offset
	// above 2^32-2 (or a negative index: spans are checked on write,
	// indexes are not) comes only from rows written by another tool; it
	// is kept exactly, in this map, rather than refused (an Apply error
	// would stall the index) or cut.
	wide map[uint64]span
	// first is, per ordinal, its entry's only chunk key, the common case
	// (one chunk of CHUNK_SIZE 1500 holds most entries); 0 when it has
	// none or several (or its one key is 0, which row ids never are, but
	// a store may hand out): those are in multi, ascending.
	first   []uint64
	multi   map[uint32][]uint64
	entries int // ordinals with at least one key
}

// chunkRef is what the index knows of one chunk key: 16 bytes.
type chunkRef struct {
	ord               uint32 // the entry's catalog ordinal
	index, start, end uint32 // index == wideMark: the range is in chunkMap.wide
}

// span is a chunk's position in its entry: its index and its text range
// in code points.
type span struct{ index, start, end int }

// wideMark in chunkRef.index sends a lookup to chunkMap.wide.
const wideMark = math.MaxUint32

// narrow reports whether v fits a chunkRef field.
func narrow(v int) bool { return v >= 0 && uint64(v) < wideMark }

// newChunkMap returns an empty map sized for about entries and chunks.
func newChunkMap(entries, chunks int) *chunkMap {
	return &chunkMap{
		refs:  newChunkRefs(),
		first: make([]uint64, 0, entries),
		multi: map[uint32][]uint64{},
	}
}

// len is the number of chunk keys.
func (m *chunkMap) len() int { return m.refs.len() }

// ref returns key's entry ordinal and range.
func (m *chunkMap) ref(key uint64) (ord uint32, s span, ok bool) {
	r, ok := m.refs.get(key)
	if !ok {
		return 0, span{}, false
	}
	if r.index == wideMark {
		return r.ord, m.wide[key], true
	}
	return r.ord, span{int(r.index), int(r.start), int(r.end)}, true
}

// ordinal returns key's entry ordinal: the search's filter, run for every
// node the walk reaches.
func (m *chunkMap) ordinal(key uint64) (uint32, bool) {
	r, ok := m.refs.get(key)
	return r.ord, ok
}

// keys returns ord's chunk keys, ascending. The slice is the map's own:
// the caller neither changes nor keeps it past the next set or drop.
func (m *chunkMap) keys(ord uint32) []uint64 {
	if int(ord) < len(m.first) && m.first[ord] != 0 {
		return m.first[ord : ord+1 : ord+1]
	}
	return m.multi[ord]
}

// put records one chunk key of ord; setKeys records the entry's list.
func (m *chunkMap) put(key uint64, ord uint32, s span) {
	if narrow(s.index) && narrow(s.start) && narrow(s.end) {
		m.refs.set(key, chunkRef{ord: ord, index: uint32(s.index), start: uint32(s.start), end: uint32(s.end)})
		return
	}
	if m.wide == nil {
		m.wide = map[uint64]span{}
	}
	m.refs.set(key, chunkRef{ord: ord, index: wideMark})
	m.wide[key] = s
}

// setKeys records keys (ascending, distinct, put already; the map keeps
// the slice) as the chunk keys of ord, which has none.
func (m *chunkMap) setKeys(ord uint32, keys []uint64) {
	if len(keys) == 0 {
		return
	}
	if int(ord) >= len(m.first) {
		if int(ord) >= cap(m.first) {
			// An eighth more at a time, as the graph's arrays (vector's
			// room): append's quarter would leave 0.8 MB unused at 100k.
			n := int(ord) + 1
			grown := make([]uint64, len(m.first), n+max(n/8, 1024))
			copy(grown, m.first)
			m.first = grown
		}
		m.first = m.first[:ord+1]
	}
	if len(keys) == 1 && keys[0] != 0 {
		m.first[ord] = keys[0]
	} else {
		m.multi[ord] = keys
	}
	m.entries++
}

// drop forgets ord's chunk keys (callers read them first: keys).
func (m *chunkMap) drop(ord uint32) {
	keys := m.keys(ord)
	if len(keys) == 0 {
		return
	}
	for _, k := range keys {
		if r, _ := m.refs.get(k); r.index == wideMark {
			delete(m.wide, k)
		}
		m.refs.del(k)
	}
	if m.first[ord] != 0 {
		m.first[ord] = 0
	} else {
		delete(m.multi, ord)
	}
	m.entries--
}

// sample returns up to n ordinals that have chunk keys and pass keep,
// walking from a random ordinal (a different sample each call).
func (m *chunkMap) sample(n int, keep func(ord uint32) bool) []uint32 {
	size := len(m.first) // setKeys extends first to every ordinal it records
	if size == 0 {
		return nil
	}
	var out []uint32
	from := rand.IntN(size)
	for i := 0; i < size && len(out) < n; i++ {
		ord := uint32((from + i) % size)
		if len(m.keys(ord)) > 0 && keep(ord) {
			out = append(out, ord)
		}
	}
	return out
}
