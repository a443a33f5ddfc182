package bench

import "testing"

func TestRecallAt10(t *testing.T) {
	exact := [][]topHit{
		{{1, 0.1}, {2, 0.2}, {3, 0.3}},
		{{4, 0.1}, {5, 0.5}},
		{},
	}
	cases := []struct {
		name string
		got  [][]topHit
		want float64
	}{
		{"same", [][]topHit{{{1, 0.1}, {2, 0.2}, {3, 0.3}}, {{4, 0.1}, {5, 0.5}}, nil}, 1},
		{"a copy at the tied distance counts", [][]topHit{{{1, 0.1}, {2, 0.2}, {9, 0.3}}, {{4, 0.1}, {8, 0.5}}, nil}, 1},
		{"farther ones miss", [][]topHit{{{1, 0.1}, {7, 0.35}, {9, 0.4}}, {{4, 0.1}}, nil}, 2.0 / 5},
		{"only the first len(exact) are judged", [][]topHit{{{1, 0.1}, {2, 0.2}, {7, 0.4}, {3, 0.3}}, {{5, 0.5}, {4, 0.1}}, nil}, 4.0 / 5},
	}
	for _, c := range cases {
		if got := recallAt10(c.got, exact); got != c.want {
			t.Errorf("%s: recall %v, want %v", c.name, got, c.want)
		}
	}
}
