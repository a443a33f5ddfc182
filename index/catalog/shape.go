package catalog

import (
	"encoding/binary"
	"hash/maphash"
	"iter"
	"math"
	"unique"
)

// Shapes. Everything a slot records besides its id — owner, public flag,
// thread, source, content type, tags, user and group grants, whether it
// has a summary, how many images and node summaries — repeats
// across entries: one owner writes thousands of entries into a few
// threads with a few tag sets. The catalog keeps each distinct
// combination once, as a shape with a reference count, and a slot holds
// its id and a 4-byte shape number: 24 bytes a slot where the fields
// themselves took 144 plus the tags' backing array. With the ids in a
// refTable instead of a Go map, BenchmarkCatalogMemory at 100k entries
// of 8 threads and 20 tags went from 264.5 to 103.7 B per entry
// (2026-12-03, AMD EPYC 2 cores, go1.26.8; README "Performance").
//
// A workload whose entries share nothing (a thread or a tag set per
// entry) pays one shape per entry: 96 bytes of record and 8-16 of index
// beside the 24-byte slot, still less than the fields took inline
// (BenchmarkCatalogMemory's distinct case: 1,067 → 819 B per entry, most
// of it the per-value bitmaps and interned strings either way).
//
// The lists (tags, user grants, group grants) are kept encoded in one
// string each, every element a uvarint length and its bytes in the
// entry's order, duplicates included: a shape is then comparable and
// costs no slice headers, and the snapshot writes the lists exactly as
// before.

// shapeKey is a shape's fields; equal keys are one shape.
type shapeKey struct {
	owner, thread, source, ctype str
	public                       bool
	// summarized, images and nodes: the entry has a summary, how many
	// images and node summaries (get_statistics' figures, stats.go). Most entries of a
	// thread agree on both, so they cost no memory per entry.
	summarized          bool
	images, nodes       uint32
	tags, users, groups string // encoded lists (strs)
}

// shape is one distinct shapeKey and the live slots holding it.
type shape struct {
	key  shapeKey
	refs uint32
}

// shapes numbers the distinct shapes: number 0 is no shape (a dead
// slot), a number whose shape no slot holds any more is reused.
type shapes struct {
	seed maphash.Seed
	recs []shape
	idx  refTable
	free []uint32
}

func newShapes() shapes { return shapes{seed: maphash.MakeSeed(), recs: make([]shape, 1)} }

func (t *shapes) hash(k *shapeKey) uint64 {
	var h maphash.Hash
	h.SetSeed(t.seed)
	for _, s := range [...]string{k.owner.Value(), k.thread.Value(), k.source.Value(), k.ctype.Value(), k.tags, k.users, k.groups} {
		h.WriteString(s)
		h.WriteByte(byte(len(s)))
	}
	var flags [9]byte
	if k.public {
		flags[0] = 1
	}
	if k.summarized {
		flags[0] |= 2
	}
	binary.LittleEndian.PutUint32(flags[1:], k.images)
	binary.LittleEndian.PutUint32(flags[5:], k.nodes)
	h.Write(flags[:])
	return h.Sum64()
}

func (t *shapes) hashOf(n uint32) uint64 { return t.hash(&t.recs[n].key) }

// acquire returns the number of k's shape, making it when no live slot
// holds it, and counts one more holder.
func (t *shapes) acquire(k shapeKey) uint32 {
	h := t.hash(&k)
	n, ok := t.idx.find(h, func(n uint32) bool { return t.recs[n].key == k })
	if !ok {
		if len(t.free) > 0 {
			n = t.free[len(t.free)-1]
			t.free = t.free[:len(t.free)-1]
		} else {
			n = uint32(len(t.recs))
			t.recs = append(t.recs, shape{})
		}
		t.recs[n].key = k
		t.idx.insert(h, n, t.hashOf)
	}
	t.recs[n].refs++
	return n
}

// release counts one holder of shape n less and forgets the shape (its
// strings go to the collector) when none is left.
func (t *shapes) release(n uint32) {
	r := &t.recs[n]
	if r.refs--; r.refs > 0 {
		return
	}
	t.idx.remove(t.hash(&r.key), func(m uint32) bool { return m == n }, t.hashOf)
	*r = shape{}
	t.free = append(t.free, n)
}

// keyOf is the shape of e: its fields interned, its lists encoded into
// buf (scratch, returned for reuse) and copied out in one string that the
// three lists slice (one allocation a Put, garbage when the shape exists).
func keyOf(e Entry, buf []byte) (shapeKey, []byte) {
	k := shapeKey{owner: unique.Make(e.Owner), public: e.Public, thread: unique.Make(e.ThreadID),
		source: unique.Make(e.Source), ctype: unique.Make(e.ContentType),
		summarized: e.Summarized, images: clamp32(e.Images), nodes: clamp32(e.Nodes)}
	b := buf[:0]
	var cut [2]int // where the user grants and the group grants end
	for i, prefix := range [...]string{"u:", "g:"} {
		for _, r := range e.Readers {
			if len(r) > 2 && r[:2] == prefix {
				b = appendString(b, r[2:])
			}
		}
		cut[i] = len(b)
	}
	for _, t := range e.Tags {
		b = appendString(b, t)
	}
	all := string(b)
	k.users, k.groups, k.tags = all[:cut[0]], all[cut[0]:cut[1]], all[cut[1]:]
	return k, b
}

func clamp32(n int) uint32 { return uint32(min(max(n, 0), math.MaxUint32)) }

// strs iterates an encoded list (appendString's elements, back to back).
func strs(enc string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for len(enc) > 0 {
			var n, w int
			for shift := 0; w < len(enc); shift += 7 {
				b := enc[w]
				w++
				n |= int(b&0x7f) << shift
				if b < 0x80 {
					break
				}
			}
			s := enc[w : w+n]
			enc = enc[w+n:]
			if !yield(s) {
				return
			}
		}
	}
}

// count is the number of elements of an encoded list.
func count(enc string) int {
	n := 0
	for range strs(enc) {
		n++
	}
	return n
}
