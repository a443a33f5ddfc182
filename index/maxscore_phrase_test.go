package index

import (
	"slices"
	"testing"

	segment "github.com/blevesearch/scorch_segment_api/v2"
)

type place struct {
	pos uint64
	ap  []uint64
}

func (p place) Field() string            { return fieldText }
func (p place) Start() uint64            { return 0 }
func (p place) End() uint64              { return 0 }
func (p place) Pos() uint64              { return p.pos }
func (p place) ArrayPositions() []uint64 { return p.ap }
func (p place) Size() int                { return 0 }

// hasPlace finds a position by binary search in ascending places, one by
// one in others, and only in the array positions asked for; both ways
// answer alike.
func TestHasPlace(t *testing.T) {
	locs := []segment.Location{place{1, nil}, place{4, nil}, place{4, []uint64{2}}, place{9, []uint64{1}}, place{12, nil}}
	cases := []struct {
		pos  uint64
		ap   []uint64
		want bool
	}{
		{1, nil, true}, {4, nil, true}, {4, []uint64{2}, true}, {4, []uint64{1}, false},
		{9, []uint64{1}, true}, {9, nil, false}, {12, nil, true}, {0, nil, false}, {5, nil, false}, {13, nil, false},
	}
	rev := slices.Clone(locs)
	slices.Reverse(rev)
	for _, tc := range cases {
		if got := hasPlace(locs, true, tc.pos, tc.ap); got != tc.want {
			t.Errorf("sorted: place %d %v: got %v", tc.pos, tc.ap, got)
		}
		if got := hasPlace(rev, false, tc.pos, tc.ap); got != tc.want {
			t.Errorf("unsorted: place %d %v: got %v", tc.pos, tc.ap, got)
		}
	}
}
