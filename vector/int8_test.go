package vector

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestInt8Kernels: the assembly kernels against the Go loops, at every
// length up to 70 (tails of 0-7 after whole blocks of 8 and 16).
func TestInt8Kernels(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := 1; n <= 70; n++ {
		q := make([]float32, n)
		a, b := make([]int8, n), make([]int8, n)
		for i := range q {
			q[i] = float32(r.NormFloat64())
			a[i], b[i] = int8(r.IntN(255)-127), int8(r.IntN(255)-127)
		}
		sa, sb := float32(r.Float64()/100), float32(r.Float64()/100)
		near := func(name string, got, want float32) {
			if d := math.Abs(float64(got - want)); d > 1e-4*max(1, math.Abs(float64(want))) {
				t.Fatalf("n=%d %s: %v, want %v", n, name, got, want)
			}
		}
		near("dot", dotF32I8(q, a), dotF32I8Generic(q, a))
		near("l2 query", l2sqF32I8(q, a, sa), l2sqF32I8Generic(q, a, sa))
		near("l2 pair", l2sqI8I8(a, sa, b, sb), l2sqI8I8Generic(a, sa, b, sb))
		// And against the reconstructions measured in float32.
		x, y := make([]float32, n), make([]float32, n)
		dequantize8(x, a, sa)
		dequantize8(y, b, sb)
		near("l2 pair vs float", l2sqI8I8(a, sa, b, sb), l2sqGeneric(x, y))
		near("l2 query vs float", l2sqF32I8(q, a, sa), l2sqGeneric(q, x))
	}
}

// TestQuantize8: the scale maps the largest magnitude to ±127, every byte
// is within half a step of the value, and quantizing a reconstruction
// gives the same bytes back.
func TestQuantize8(t *testing.T) {
	for _, v := range clustered(5, 200, 37, 0.3) {
		c := make([]int8, len(v))
		s := quantize8(c, v)
		x := make([]float32, len(v))
		dequantize8(x, c, s)
		for i := range v {
			if math.Abs(float64(x[i]-v[i])) > float64(s)*0.5001 {
				t.Fatalf("component %d: %v reconstructed as %v (scale %v)", i, v[i], x[i], s)
			}
		}
		c2 := make([]int8, len(v))
		quantize8(c2, x)
		if !slices.Equal(c, c2) {
			t.Fatal("quantizing the reconstruction changed the bytes")
		}
	}
	c := make([]int8, 4)
	if s := quantize8(c, make([]float32, 4)); s != 0 || !slices.Equal(c, make([]int8, 4)) {
		t.Fatalf("zero vector: scale %v bytes %v", s, c)
	}
}

// TestInt8Recall: an Int8 graph against the exact float32 scan of the
// original vectors (not its own bytes), every metric; the 8-bit forms
// cost little recall.
func TestInt8Recall(t *testing.T) {
	vecs := clustered(11, 4000, 100, 0.6)
	queries := clustered(12, 100, 100, 0.6)
	for _, m := range []Metric{L2, Cosine, Dot} {
		ix := build(t, vecs, Options{Metric: m, Int8: true, EfSearch: 128})
		if mem := ix.Memory(); mem.Vectors > 4000*(100+4)*2 {
			t.Fatalf("%v: %d bytes of vectors for 4,000 of 100 dimensions", m, mem.Vectors)
		}
		exact := map[uint64][]float32{}
		for i, v := range vecs {
			exact[uint64(i)] = v
		}
		found := 0
		for _, q := range queries {
			want := bruteForce(m, exact, q, 10)
			got, err := ix.Search(context.Background(), q, 10, SearchOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range got {
				if slices.Contains(want, h.Key) {
					found++
				}
			}
		}
		if r := float64(found) / float64(10*len(queries)); r < 0.95 {
			t.Fatalf("%v: recall@10 %.3f against the exact float32 scan", m, r)
		} else {
			t.Logf("%v: recall@10 %.3f against the exact float32 scan", m, r)
		}
	}
}

// TestInt8SnapshotAndMoves: a snapshot of an Int8 index reads back with
// the same answers, Items moves keys to another Int8 index byte for byte,
// and a float32 snapshot adopts the 8-bit storage on load with the answers
// of an index built 8-bit.
func TestInt8SnapshotAndMoves(t *testing.T) {
	ctx := context.Background()
	vecs := clustered(21, 1500, 48, 0.5)
	queries := clustered(22, 40, 48, 0.5)
	o := Options{Metric: L2, Int8: true}
	ix := build(t, vecs, o)
	var buf bytes.Buffer
	if _, err := ix.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := Read(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if !back.SameStorage(o) || back.SameStorage(Options{}) {
		t.Fatal("the snapshot lost its 8-bit storage")
	}
	for _, q := range queries {
		a, _ := ix.Search(ctx, q, 10, SearchOptions{})
		b, _ := back.Search(ctx, q, 10, SearchOptions{})
		if !slices.Equal(a, b) {
			t.Fatalf("snapshot answers differ: %v against %v", b, a)
		}
	}
	// Moves keep the stored bytes and scale.
	keys := []uint64{3, 7, 1000, 1499}
	other, _ := New(48, o)
	if err := other.AddBatch(ix.Items(keys)); err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		a, _ := ix.byKey.get(ix.keys, k)
		b, _ := other.byKey.get(other.keys, k)
		if !slices.Equal(ix.i8(a), other.i8(b)) || ix.scale8[a] != other.scale8[b] {
			t.Fatalf("key %d moved with other bytes", k)
		}
	}
	if err := other.AddBatch([]BatchItem{{Key: 1, Bytes: make([]int8, 47)}}); err == nil {
		t.Fatal("8-bit form of the wrong length accepted")
	}
	// A float32 snapshot adopts the 8-bit storage.
	fl := build(t, vecs, Options{Metric: L2})
	buf.Reset()
	if _, err := fl.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	old, err := Read(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if old.SameStorage(o) || !old.AdoptStorage(o) || !old.SameStorage(o) || old.vecs != nil {
		t.Fatal("a float32 snapshot did not adopt the 8-bit storage")
	}
	if old.AdoptStorage(Options{Metric: L2}) {
		t.Fatal("8-bit storage claimed to give float32 back")
	}
	for i, v := range vecs {
		id, _ := old.byKey.get(old.keys, uint64(i))
		c := make([]int8, len(v))
		s := quantize8(c, v)
		if !slices.Equal(old.i8(id), c) || old.scale8[id] != s {
			t.Fatalf("key %d: adopted bytes differ from quantizing its vector", i)
		}
	}
	if r := recallAt(t, old, queries, 10, SearchOptions{}); r < 0.95 {
		t.Fatalf("adopted index recall@10 %.3f", r)
	}
}
