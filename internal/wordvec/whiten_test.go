package wordvec

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestWhitenOracle: the whitened sample has mean 0 and, for ε = 0, the
// identity covariance, the oracle of a correct eigen-decomposition; the
// rows come in decreasing variance.
func TestWhitenOracle(t *testing.T) {
	const dim, n = 6, 4000
	r := rand.New(rand.NewPCG(1, 2))
	scales := []float64{5, 3, 2, 1, 0.5, 0.25}
	sample := make([][]float32, n)
	for i := range sample {
		v := make([]float32, dim)
		for k := range v {
			v[k] = float32(scales[k]*r.NormFloat64() + float64(k))
		}
		// mix the axes so the decomposition has work to do
		v[0], v[1] = v[0]+0.5*v[1], v[1]-0.5*v[0]
		sample[i] = v
	}
	mean, w := Whiten(sample, dim, 0)
	cov := make([]float64, dim*dim)
	mu := make([]float64, dim)
	ys := make([][]float64, n)
	for i, v := range sample {
		y := make([]float64, dim)
		for a := 0; a < dim; a++ {
			for k := 0; k < dim; k++ {
				y[a] += float64(w[a*dim+k]) * (float64(v[k]) - float64(mean[k]))
			}
			mu[a] += y[a] / n
		}
		ys[i] = y
	}
	for _, y := range ys {
		for a := 0; a < dim; a++ {
			for b := 0; b < dim; b++ {
				cov[a*dim+b] += (y[a] - mu[a]) * (y[b] - mu[b]) / n
			}
		}
	}
	for a := 0; a < dim; a++ {
		if math.Abs(mu[a]) > 1e-4 {
			t.Fatalf("whitened mean %v", mu)
		}
		for b := 0; b < dim; b++ {
			want := 0.0
			if a == b {
				want = 1
			}
			if math.Abs(cov[a*dim+b]-want) > 1e-3 {
				t.Fatalf("whitened covariance [%d][%d] = %v, want %v", a, b, cov[a*dim+b], want)
			}
		}
	}
	// Row norms are 1/√λ: the first (largest variance) row is shortest.
	norm := func(r int) float64 {
		s := 0.0
		for k := 0; k < dim; k++ {
			s += float64(w[r*dim+k]) * float64(w[r*dim+k])
		}
		return s
	}
	for r := 1; r < dim; r++ {
		if norm(r) < norm(r-1) {
			t.Fatalf("row %d norm %v below row %d's %v", r, norm(r), r-1, norm(r-1))
		}
	}
}

// TestEncodeWhitening: a table with whitening round-trips as version 2
// and embeds through it; a wrong-sized whitening is refused.
func TestEncodeWhitening(t *testing.T) {
	tab := &Table{Dim: 2, Vocab: 10, SIFA: 1e-3, Words: []string{"a", "b"}, Ranks: []uint32{1, 2},
		Mean0: []float32{0.5, 0}, W: []float32{2, 0, 0, 1}}
	data, err := Encode(tab, [][]float32{{1, 0}, {0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	dt, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if data[4] != 2 || len(dt.W) != 4 || dt.Mean0[0] != 0.5 {
		t.Fatalf("version %d, W %v, mean %v", data[4], dt.W, dt.Mean0)
	}
	out := make([]float32, 2)
	dt.Embed("a", out) // (1,0) − (0.5,0) = (0.5,0) → W → (1,0)
	if math.Abs(float64(out[0])-1) > 1e-6 || math.Abs(float64(out[1])) > 1e-6 {
		t.Fatalf("embed = %v, want (1, 0)", out)
	}
	tab.W = tab.W[:3]
	if _, err := Encode(tab, [][]float32{{1, 0}, {0, 1}}); err == nil {
		t.Fatal("wrong-sized whitening encoded")
	}
}

// TestPCAOracle: on a sample stretched along known orthogonal directions
// (the 45° rotation of the first two axes, then the fourth axis), PCA
// returns those directions in order of variance, unit length, with the
// sign rule, and projecting on them keeps the variance the sample has
// along them (the oracle: the exact variances 25, 9 and 4).
func TestPCAOracle(t *testing.T) {
	const dim, n = 5, 20000
	r := rand.New(rand.NewPCG(3, 4))
	s := math.Sqrt(0.5)
	dirs := [][]float64{{s, s, 0, 0, 0}, {-s, s, 0, 0, 0}, {0, 0, 0, 1, 0}, {0, 0, 1, 0, 0}, {0, 0, 0, 0, 1}}
	sd := []float64{5, 3, 2, 0.5, 0.1}
	sample := make([][]float32, n)
	for i := range sample {
		v := make([]float32, dim)
		for j, d := range dirs {
			z := sd[j] * r.NormFloat64()
			for k := range v {
				v[k] += float32(z * d[k])
			}
		}
		v[2] += 7 // an offset the mean must take out
		sample[i] = v
	}
	mean, axes := PCA(sample, dim, 3)
	if len(axes) != 3*dim || math.Abs(float64(mean[2])-7) > 0.05 {
		t.Fatalf("%d axis values, mean %v", len(axes), mean)
	}
	for a := 0; a < 3; a++ {
		row := axes[a*dim : (a+1)*dim]
		var cosine, norm float64
		for k := range row {
			cosine += float64(row[k]) * dirs[a][k]
			norm += float64(row[k]) * float64(row[k])
		}
		if math.Abs(norm-1) > 1e-5 || math.Abs(math.Abs(cosine)-1) > 1e-3 {
			t.Fatalf("axis %d = %v, want ±%v", a, row, dirs[a])
		}
		var variance float64
		for _, v := range sample {
			var y float64
			for k := range row {
				y += float64(row[k]) * (float64(v[k]) - float64(mean[k]))
			}
			variance += y * y / n
		}
		if want := sd[a] * sd[a]; math.Abs(variance-want)/want > 0.05 {
			t.Fatalf("variance along axis %d = %.3f, want %.3f", a, variance, want)
		}
	}
	if _, axes := PCA(sample, dim, 99); len(axes) != dim*dim {
		t.Fatalf("k above dim: %d values, want %d", len(axes), dim*dim)
	}
}

// TestProjectOracle: projecting on all axes keeps distances (a rotation
// of the centred rows); projecting on the first k keeps each row's
// coordinates along those axes, computed directly.
func TestProjectOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	rows := make([][]float32, 200)
	for i := range rows {
		rows[i] = []float32{float32(r.NormFloat64() * 3), float32(r.NormFloat64()), float32(r.NormFloat64() * 0.2), float32(r.NormFloat64() * 0.05)}
	}
	full := Project(rows, rows, 4, 4)
	dist := func(x, y []float32) float64 {
		var s float64
		for k := range x {
			s += float64(x[k]-y[k]) * float64(x[k]-y[k])
		}
		return math.Sqrt(s)
	}
	for i := 1; i < len(rows); i++ {
		if d0, d1 := dist(rows[0], rows[i]), dist(full[0], full[i]); math.Abs(d0-d1) > 1e-4*max(1, d0) {
			t.Fatalf("row %d: distance %v became %v", i, d0, d1)
		}
	}
	mean, axes := PCA(rows, 4, 2)
	two := Project(rows, rows, 4, 2)
	for i, v := range rows {
		if len(two[i]) != 2 {
			t.Fatalf("row %d has %d dims", i, len(two[i]))
		}
		for a := 0; a < 2; a++ {
			var want float64
			for k := range v {
				want += float64(axes[a*4+k]) * float64(v[k]-mean[k])
			}
			if math.Abs(want-float64(two[i][a])) > 1e-4 {
				t.Fatalf("row %d axis %d: %v, want %v", i, a, two[i][a], want)
			}
		}
	}
}
