package vector

import (
	"context"
	"slices"
	"testing"

	"github.com/contextd/contextd/quant"
)

// TestSearchKeys: SearchKeys over a key list answers as the exact scan
// with the list as its filter (float32, codes, codes with float32
// re-ranking), skips absent keys, orders ties by key whatever the node
// numbers, and Items moves keys into another L2 index with the same
// distances bit for bit.
func TestSearchKeys(t *testing.T) {
	ctx := context.Background()
	data := clustered(3, 600, 16, 0.1)
	q, err := quant.New(quant.Config{Dim: 16, Variant: quant.MSE, Bits: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []Options{{Metric: L2}, {Metric: L2, Quantizer: q}, {Metric: L2, Quantizer: q, KeepFloat: true}, {Metric: Cosine}} {
		ix, err := New(16, o)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range data {
			if err := ix.Add(uint64(1000-i), v); err != nil { // keys descend as nodes ascend
				t.Fatal(err)
			}
		}
		if err := ix.Add(1, data[10]); err != nil { // key 990's twin, on a later node
			t.Fatal(err)
		}
		var keys []uint64
		for k := uint64(401); k <= 1000; k += 3 {
			keys = append(keys, k)
		}
		keys = append(keys, 1, 99999) // 99999 is absent
		in := map[uint64]bool{}
		for _, k := range keys {
			in[k] = true
		}
		for qi, qv := range data[:20] {
			got, err := ix.SearchKeys(ctx, qv, 10, keys)
			if err != nil {
				t.Fatal(err)
			}
			want, err := ix.Search(ctx, qv, 10, SearchOptions{Exact: true, Allow: func(k uint64) bool { return in[k] }})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%+v query %d: SearchKeys %v, exact scan %v", o, qi, got, want)
			}
		}
		if o.Quantizer == nil {
			hits, _ := ix.SearchKeys(ctx, data[10], 1, []uint64{990, 1})
			if len(hits) != 1 || hits[0].Key != 1 {
				t.Fatalf("a tie kept %v, want key 1 (by node number 990 came first)", hits)
			}
		}
		if o.Metric == Cosine {
			continue // Items' vectors are normalised once more on the way in
		}
		other, err := New(16, o)
		if err != nil {
			t.Fatal(err)
		}
		if err := other.AddBatch(ix.Items(keys)); err != nil {
			t.Fatal(err)
		}
		a, _ := ix.SearchKeys(ctx, data[0], 50, keys)
		b, _ := other.SearchKeys(ctx, data[0], 50, keys)
		if !slices.Equal(a, b) {
			t.Fatalf("%+v: moved keys measure %v, the original %v", o, b, a)
		}
	}
}
