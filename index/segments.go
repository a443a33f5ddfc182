package index

import (
	"sort"

	"github.com/blevesearch/bleve/v2/index/scorch"
)

// segmentOffsets returns the global number of each segment's first
// document in scorch's numbering (the segments' document counts, deleted
// ones included, in order), with the total last.
func segmentOffsets(segs []*scorch.SegmentSnapshot) []uint64 {
	offsets := make([]uint64, len(segs)+1)
	for k, s := range segs {
		offsets[k+1] = offsets[k] + s.Segment().Count()
	}
	return offsets
}

// segmentOf returns the segment of global document n, by its offsets
// (segmentOffsets), and n's number in it; k is len(offsets)-1 when n is
// past the last segment.
func segmentOf(offsets []uint64, n uint64) (k int, local uint64) {
	k = sort.Search(len(offsets)-1, func(k int) bool { return offsets[k+1] > n })
	if k >= len(offsets)-1 {
		return k, 0
	}
	return k, n - offsets[k]
}
