package catalog

import (
	"time"

	"github.com/RoaringBitmap/roaring/v2"
)

// dateBounds are q's date bounds in unix microseconds (stored times are
// whole microseconds: a start bound is rounded up).
func dateBounds(q Query) (lo, hi int64) {
	lo, hi = -1<<63, 1<<63-1
	if q.Start != nil {
		lo = q.Start.UnixMicro()
		if time.UnixMicro(lo).Before(*q.Start) {
			lo++
		}
	}
	if q.End != nil {
		hi = q.End.UnixMicro()
	}
	return lo, hi
}

// filterDates returns the ordinals of b created inside q's bounds. The
// per-ordinal creation times are one flat slice: the scan costs about a
// nanosecond per allowed ordinal.
func (c *Catalog) filterDates(b *roaring.Bitmap, q Query) *roaring.Bitmap {
	lo, hi := dateBounds(q)
	keep := c.buf(int(b.GetCardinality()))
	it := b.ManyIterator()
	for n := it.NextMany(keep[len(keep):cap(keep)]); n > 0; n = it.NextMany(keep[len(keep):cap(keep)]) {
		for _, o := range keep[len(keep) : len(keep)+n] {
			if v := c.created[o]; v >= lo && v <= hi {
				keep = append(keep, o)
			}
		}
	}
	return roaring.BitmapOf(keep...)
}
