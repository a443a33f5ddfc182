package search

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/quant"
)

// TestVectorsGraphInt8: a scope graph holds 8-bit vectors once it passes
// the budget (int8From chunks); the smaller scopes' graphs and the pool
// keep float32; every answer is the exact scan's over the values the
// indexes hold, the same entries at the same distances up to float
// rounding; a snapshot keeps the 8-bit graphs (no rebuild, the same
// answers); and a scope shrunk below graphFrom/4 gives its 8-bit graph's
// chunks back to the float32 pool.
func TestVectorsGraphInt8(t *testing.T) {
	setThresholds(t, 12, 1<<30)
	w := newSnapWorld(t, 11)
	ft, vs, closeAll, _ := w.open(true)
	vs.ix.emu.Lock()
	vs.ix.p.int8From = 40
	vs.ix.emu.Unlock()
	for range 500 {
		w.add()
	}
	w.churn(200)
	ctx := context.Background()
	compare := func(what string) {
		t.Helper()
		q := rand.New(rand.NewPCG(5, 5))
		for i := range 40 {
			acc := persist.Access{Principal: snapUsers[i%len(snapUsers)]}
			if i%3 == 0 {
				acc.Groups = []string{"birders"}
			}
			v := []float32{float32(q.NormFloat64()), float32(q.NormFloat64()), float32(q.NormFloat64()), float32(q.NormFloat64())}
			got, _, err := vs.Rank(ctx, acc, VectorQuery{Vector: v, Depth: 20})
			if err != nil {
				t.Fatal(err)
			}
			want := oracleHits(t, vs.ix, v, vs.ix.allowedSet(acc, persist.Filter{}), 20)
			if len(got) != len(want) {
				t.Fatalf("%s: query %d: %d hits, want %d", what, i, len(got), len(want))
			}
			for j := range got {
				if d := math.Abs(got[j].Distance - want[j].Distance); d > 1e-4*max(1, want[j].Distance) {
					t.Fatalf("%s: query %d, rank %d: distance %v, the exact scan's %v", what, i, j, got[j].Distance, want[j].Distance)
				}
			}
		}
	}
	compare("8-bit graphs") // caught up with the follower
	checkPartition(t, vs.ix)
	o8, ok := vs.ix.p.graph8()
	if !ok {
		t.Fatal("no 8-bit storage for a float32 graph")
	}
	storage := func() (eight, float int) {
		t.Helper()
		if vs.ix.p.pool.SameStorage(o8) {
			t.Fatal("the pool holds 8-bit vectors")
		}
		for _, s := range vs.ix.p.graphs {
			switch {
			case s.g.SameStorage(o8):
				eight++
			case s.gchunks >= vs.ix.p.int8From:
				t.Fatalf("scope %q: a float32 graph of %d chunks past the budget of %d", s.key, s.gchunks, vs.ix.p.int8From)
			default:
				float++
			}
		}
		return eight, float
	}
	if eight, float := storage(); eight == 0 || float == 0 {
		t.Fatalf("%d 8-bit and %d float32 graphs: the world exercises too little", eight, float)
	}
	before := w.answers(ft, vs)
	closeAll()

	// The budget of the settings (8,388,608 chunks of 4 dimensions) keeps
	// the loaded 8-bit graphs as they are.
	if n := (quant.Settings{}).GraphInt8Chunks(4); n != 128<<20/16 {
		t.Fatalf("GraphInt8Chunks(4) = %d", n)
	}
	ft, vs, closeAll, progress := w.open(true)
	defer closeAll()
	if progress != "" {
		t.Fatalf("a snapshot with 8-bit graphs: progress %q", progress)
	}
	if after := w.answers(ft, vs); !slices.Equal(after, before) {
		t.Fatal("answers differ after loading the snapshot")
	}
	if eight, _ := storage(); eight == 0 {
		t.Fatal("the loaded graphs are not 8-bit")
	}

	// Shrink an 8-bit scope to one entry: its chunks go back to the pool.
	var shrunk *vecScope
	var ids []string
	for _, s := range vs.ix.p.graphs {
		if s.g.SameStorage(o8) {
			shrunk = s
			for _, ord := range s.ords.ToArray()[1:] {
				id, _ := vs.ix.cat.ID(ord)
				ids = append(ids, id)
			}
			break
		}
	}
	del(t, w.st, ids...)
	w.ids = slices.DeleteFunc(w.ids, func(id string) bool { return slices.Contains(ids, id) })
	compare("after a demotion")
	checkPartition(t, vs.ix)
	if shrunk.g != nil || vs.ix.p.pool.SameStorage(o8) {
		t.Fatalf("scope %q of %d chunks kept its graph", shrunk.key, shrunk.chunks)
	}
	for _, it := range vs.ix.p.pool.Items(vs.ix.p.pool.Keys()) {
		if it.Bytes != nil {
			t.Fatal("an 8-bit chunk in the pool")
		}
	}
}
