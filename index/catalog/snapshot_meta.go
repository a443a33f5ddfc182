package catalog

import (
	"encoding/binary"
	"slices"

	"github.com/contextd/contextd/index/snapfmt"
)

// The metadata columns in a snapshot. Without them a catalog read back
// from its snapshot could not answer metadata conditions (every entry
// unserved: search_context's metadata filters fell back to SQL after each
// restart, 17 ms instead of 2-4 ms for the bench's combined filter at
// 100k entries). They are written as values, not as the column store's
// internal layout: per column (by key, sorted) its key and its cells in
// ordinal order, each cell its kind and either its string (text), or its
// 8 bytes and, for an array, its scalar elements; the column store is
// rebuilt from them by the same set calls a Put makes, so its dictionaries
// and sparse or dense layout come out as a Put would make them.
//
// Section, after the free list: flag u8 (0: the catalog keeps no
// metadata, 1: it does); with 1: count and ordinals of the unserved live
// slots, count of columns, then per column: key (length, bytes), count of
// cells, per cell: ordinal uvarint, kind u8, then a text's string (length,
// bytes) or the value u64; an array's cell then has its count of
// elements, each a kind u8 and a string or u64 the same way.

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// appendValue appends a kind and its payload (string or 8 bytes).
func appendValue(b []byte, kind uint8, v uint64, s string) []byte {
	b = append(b, kind)
	if kind == kText {
		return appendString(b, s)
	}
	return binary.LittleEndian.AppendUint64(b, v)
}

// encodeMeta appends the metadata section (the caller holds the lock).
func (c *Catalog) encodeMeta(b []byte) []byte {
	if c.meta == nil {
		return append(b, 0)
	}
	b = append(b, 1)
	b = binary.AppendUvarint(b, uint64(c.unserved))
	for i := range c.slots {
		if c.slots[i].live() && c.slots[i].unserved {
			b = binary.AppendUvarint(b, uint64(i))
		}
	}
	keys := make([]string, 0, len(c.meta))
	for k := range c.meta {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = binary.AppendUvarint(b, uint64(len(keys)))
	for _, k := range keys {
		col := c.meta[k]
		b = appendString(b, k)
		b = binary.AppendUvarint(b, uint64(col.n))
		for ord := range c.slots {
			cl := col.get(uint32(ord))
			if cl.kind == kAbsent {
				continue
			}
			b = binary.AppendUvarint(b, uint64(ord))
			s := ""
			if cl.kind == kText {
				s = col.strs[cl.v]
			}
			b = appendValue(b, cl.kind, cl.v, s)
			if cl.kind == kArray {
				arr := col.arrays[uint32(ord)]
				b = binary.AppendUvarint(b, uint64(len(arr)))
				for _, e := range arr {
					b = appendValue(b, e.kind, e.v, e.s)
				}
			}
		}
	}
	return b
}

// readValue reads what appendValue wrote.
func readValue(r *snapfmt.Reader) elem {
	k := r.Bytes(1)
	if r.Err != nil {
		return elem{}
	}
	e := elem{kind: k[0]}
	if e.kind == kAbsent || e.kind > kObject {
		r.Fail("metadata kind %d", e.kind)
		return elem{}
	}
	if e.kind == kText {
		e.s = string(r.Bytes(r.Count(1)))
	} else if b := r.Bytes(8); r.Err == nil {
		e.v = binary.LittleEndian.Uint64(b)
	}
	return e
}

// decodeMeta reads the metadata section into c, whose slots are decoded.
func (c *Catalog) decodeMeta(r *snapfmt.Reader) {
	f := r.Bytes(1)
	if r.Err != nil || f[0] == 0 {
		return
	}
	if f[0] != 1 {
		r.Fail("metadata flag %d", f[0])
		return
	}
	c.meta = map[string]*column{}
	live := func(o uint64) bool { return o < uint64(len(c.slots)) && c.slots[o].live() }
	for range r.Count(1) {
		o := r.Uvarint()
		if r.Err != nil || !live(o) || c.slots[o].unserved {
			r.Fail("unserved ordinal %d", o)
			return
		}
		c.slots[o].unserved = true
		c.unserved++
	}
	for range r.Count(1) {
		key := string(r.Bytes(r.Count(1)))
		if _, dup := c.meta[key]; dup || r.Err != nil {
			r.Fail("metadata column %q twice", key)
			return
		}
		col := &column{}
		c.meta[key] = col
		last := int64(-1)
		for range r.Count(1) {
			o := r.Uvarint()
			if r.Err != nil || !live(o) || c.slots[o].unserved || int64(o) <= last {
				r.Fail("metadata cell at ordinal %d", o)
				return
			}
			last = int64(o)
			x := readValue(r)
			var arr []elem
			if x.kind == kArray {
				n := r.Count(1)
				if n > maxCells {
					r.Fail("array of %d elements", n)
					return
				}
				arr = make([]elem, 0, n)
				for range n {
					e := readValue(r)
					if e.kind == kArray || e.kind == kObject {
						r.Fail("nested array element")
					}
					arr = append(arr, e)
				}
			}
			if r.Err != nil {
				return
			}
			col.set(uint32(o), x, arr, len(c.slots))
		}
		if col.n == 0 {
			r.Fail("metadata column %q is empty", key)
			return
		}
	}
}
