package search

import "math/bits"

// chunkRefs maps chunk keys to chunkRefs in pages of refPageKeys
// consecutive keys. Chunk keys are the database's row ids, handed out in
// ascending order and nearly dense, so a page is mostly full: 16 bytes a
// key and a bit. A Go map of the same values took 50 MB at a million
// keys (slots of 24 bytes and a control byte, rounded up to a power of
// two: two million slots for a table sized for one million), the largest
// part of the chunk map, which was 56 of the 555 MiB of Go heap after a
// restart of the 1M bench database (2026-12-05).
//
// Keys far from the others would each take a page of their own, so a key
// whose page does not exist yet goes to a plain map (spill) while the
// pages would be less than a quarter full, and a delete that leaves them
// less than an eighth full moves the keys of the emptiest pages there:
// the pages never hold more than about 8·16 bytes a key, whatever the
// keys.
type chunkRefs struct {
	pages map[uint64]*refPage
	spill map[uint64]chunkRef
	n     int // keys, pages and spill together
	inPg  int // keys in pages
}

const (
	refPageBits = 9
	refPageKeys = 1 << refPageBits
	// refPagesFree pages may exist beyond the occupancy rule: a small
	// map starts paged.
	refPagesFree = 16
)

type refPage struct {
	present [refPageKeys / 64]uint64
	n       int
	refs    [refPageKeys]chunkRef
}

func newChunkRefs() chunkRefs {
	return chunkRefs{pages: map[uint64]*refPage{}}
}

func (t *chunkRefs) len() int { return t.n }

func (t *chunkRefs) get(key uint64) (chunkRef, bool) {
	if p := t.pages[key>>refPageBits]; p != nil {
		i := key & (refPageKeys - 1)
		if p.present[i/64]&(1<<(i%64)) != 0 {
			return p.refs[i], true
		}
	}
	if len(t.spill) == 0 {
		return chunkRef{}, false
	}
	r, ok := t.spill[key]
	return r, ok
}

// set stores r under key; it reports whether key is new.
func (t *chunkRefs) set(key uint64, r chunkRef) bool {
	pk := key >> refPageBits
	p := t.pages[pk]
	if p == nil && (len(t.pages)+1-refPagesFree)*refPageKeys > 4*(t.inPg+1) {
		if _, had := t.spill[key]; had {
			t.spill[key] = r
			return false
		}
		if t.spill == nil {
			t.spill = map[uint64]chunkRef{}
		}
		t.spill[key] = r
		t.n++
		return true
	}
	if p == nil {
		p = &refPage{}
		t.pages[pk] = p
	}
	i := key & (refPageKeys - 1)
	p.refs[i] = r
	if p.present[i/64]&(1<<(i%64)) != 0 {
		return false
	}
	p.present[i/64] |= 1 << (i % 64)
	p.n++
	t.inPg++
	if len(t.spill) > 0 {
		if _, had := t.spill[key]; had { // spilled before its page existed
			delete(t.spill, key)
			return false
		}
	}
	t.n++
	return true
}

// del removes key.
func (t *chunkRefs) del(key uint64) {
	if p := t.pages[key>>refPageBits]; p != nil {
		i := key & (refPageKeys - 1)
		if p.present[i/64]&(1<<(i%64)) != 0 {
			p.present[i/64] &^= 1 << (i % 64)
			p.refs[i] = chunkRef{}
			p.n--
			t.inPg--
			t.n--
			if p.n == 0 {
				delete(t.pages, key>>refPageBits)
			} else if len(t.pages) > refPagesFree && len(t.pages)*refPageKeys > 8*t.inPg {
				t.thin()
			}
			return
		}
	}
	if _, ok := t.spill[key]; ok {
		delete(t.spill, key)
		t.n--
	}
}

// thin moves the keys of the pages less than a quarter full to the spill
// map, leaving the rest at least a quarter full on average.
func (t *chunkRefs) thin() {
	if t.spill == nil {
		t.spill = map[uint64]chunkRef{}
	}
	for pk, p := range t.pages {
		if p.n*4 >= refPageKeys {
			continue
		}
		for w, word := range p.present {
			for word != 0 {
				b := bits.TrailingZeros64(word)
				word &^= 1 << b
				i := w*64 + b
				t.spill[pk<<refPageBits|uint64(i)] = p.refs[i]
			}
		}
		t.inPg -= p.n
		delete(t.pages, pk)
	}
}
