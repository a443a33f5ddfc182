package catalog

import "github.com/RoaringBitmap/roaring/v2"

// posting is the ordinals of one group grant: up to inlineOrds of them
// inline (most groups of a caller with thousands of groups hold a few
// entries each), a bitmap past that. Kept by value in the map, a small
// group costs Allowed one map probe and no pointer chasing: with 10,000
// groups the union went from about 1.8 ms with one bitmap per group to
// the figure in BenchmarkAllowed.
type posting struct {
	n  uint8
	in [inlineOrds]uint32
	bm *roaring.Bitmap
}

const inlineOrds = 4

func (p posting) add(ord uint32) posting {
	if p.bm != nil {
		p.bm.Add(ord)
		return p
	}
	for _, o := range p.in[:p.n] {
		if o == ord {
			return p
		}
	}
	if int(p.n) < inlineOrds {
		p.in[p.n] = ord
		p.n++
		return p
	}
	p.bm = roaring.BitmapOf(p.in[:p.n]...)
	p.bm.Add(ord)
	p.n = 0
	return p
}

func (p posting) remove(ord uint32) posting {
	if p.bm != nil {
		p.bm.Remove(ord)
		return p
	}
	for i, o := range p.in[:p.n] {
		if o == ord {
			p.in[i] = p.in[p.n-1]
			p.n--
			break
		}
	}
	return p
}

func (p posting) empty() bool { return p.n == 0 && (p.bm == nil || p.bm.IsEmpty()) }
