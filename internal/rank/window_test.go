package rank

import (
	"slices"
	"testing"
)

func TestWindow(t *testing.T) {
	s := []int{0, 1, 2, 3, 4, 5, 6}
	for _, tc := range []struct {
		w    Window
		want []int
	}{
		{Window{0, 3}, []int{0, 1, 2}},
		{Window{5, 3}, []int{5, 6}},
		{Window{6, 1}, []int{6}},
		{Window{7, 5}, nil},
		{Window{100, 5}, nil},
	} {
		if got := Cut(s, tc.w); !slices.Equal(got, tc.want) {
			t.Errorf("Cut(%v) = %v, want %v", tc.w, got, tc.want)
		}
	}
	for _, tc := range []struct {
		w           Window
		past, empty bool
	}{
		{Window{0, 100}, false, false},
		{Window{95, 5}, false, false},
		{Window{95, 6}, true, false},
		{Window{99, 1}, false, false},
		{Window{100, 1}, true, true},
		{Window{500, 10}, true, true},
	} {
		if got := tc.w.PastDepth(); got != tc.past {
			t.Errorf("%v.PastDepth() = %v, want %v", tc.w, got, tc.past)
		}
		if got := tc.w.Empty(); got != tc.empty {
			t.Errorf("%v.Empty() = %v, want %v", tc.w, got, tc.empty)
		}
	}
}
