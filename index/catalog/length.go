package catalog

import "github.com/RoaringBitmap/roaring/v2"

// Text lengths. BM25 normalizes a document's term frequencies by its
// length over the average length of the collection, and an in-process
// search's collection is the caller's readable set (index/stats.go), so
// the catalog keeps each entry's text length (in index terms) per
// ordinal: the readable set's total is then a sum over its ordinals, about
// a nanosecond each, and the whole collection's a running total.

// SetLength sets the text length of the live entry id (an index opened
// from its snapshot loads its catalog from SQL, which does not know the
// analyzed length, and fills the lengths from the index); false when id is
// not in the catalog.
func (c *Catalog) SetLength(id string, n uint32) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	ord, ok := c.lookup(id)
	if !ok {
		return false
	}
	c.tokens += uint64(n) - uint64(c.length[ord])
	c.length[ord] = n
	return true
}

// Tokens is the summed text length of the live ordinals of b; of every
// live entry when b is nil.
func (c *Catalog) Tokens(b *roaring.Bitmap) uint64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if b == nil {
		return c.tokens
	}
	var sum uint64
	buf := make([]uint32, 256)
	it := b.ManyIterator()
	for n := it.NextMany(buf); n > 0; n = it.NextMany(buf) {
		for _, o := range buf[:n] {
			if int(o) < len(c.length) {
				sum += uint64(c.length[o])
			}
		}
	}
	return sum
}
