package persisttest

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/contextd/contextd/internal/testtier"
	"github.com/contextd/contextd/persist"
)

// oracleEntry is an entry of the vector oracle with what it was stored with.
type oracleEntry struct {
	e      persist.Entry
	chunks []persist.ChunkVector
	grants []persist.Grant
}

// vectorSearchOracle compares VectorSearch with a brute-force search in Go
// over 300 random entries (owners, visibility, grants, tags, metadata,
// 1-4 chunks, a few without vectors, exact duplicates across entries) and
// 120 random queries of random principals and filters (30 under -race:
// testtier.RaceShare; the three strategies of TestVectorStrategies spent
// 180 s of the race pass on 360 queries, and 30 still reach every
// strategy and filter kind).
func (s suite) vectorSearchOracle(t *testing.T) {
	const dim = 6
	ctx := context.Background()
	st, nv := s.vectorStore(t)
	ensure(t, nv, dim)
	rng := rand.New(rand.NewPCG(7, 11))
	owners := []string{"alice", "bob", "carol"}
	threads := []string{"t0", "t1", "t2", "t3"}
	tagSet := []string{"a", "b", "c", "d"}
	var all []oracleEntry
	grants := map[string][]persist.Grant{}
	var es []persist.Entry
	for n := 1; n <= 300; n++ {
		e := NewEntry(n, threads[rng.IntN(len(threads))], []string{"user", "agent"}[rng.IntN(2)], owners[rng.IntN(len(owners))])
		if rng.IntN(5) == 0 {
			e.Visibility = "public"
		}
		for _, tg := range tagSet {
			if rng.IntN(3) == 0 {
				e.Tags = append(e.Tags, tg)
			}
		}
		if rng.IntN(2) == 0 {
			e.Metadata = meta(t, map[string]any{"n": n % 10})
		}
		if rng.IntN(6) == 0 {
			g := persist.Grant{PrincipalType: "user", PrincipalID: owners[rng.IntN(3)], Permission: "read", GrantedBy: e.Owner}
			if rng.IntN(2) == 0 {
				g = persist.Grant{PrincipalType: "group", PrincipalID: "team", Permission: "write", GrantedBy: e.Owner}
			}
			grants[e.ID] = []persist.Grant{g}
		}
		es = append(es, e)
		var vs [][]float32
		if n%37 != 0 { // a few entries without vectors
			for c := 0; c < 1+rng.IntN(4); c++ {
				v := make([]float32, dim)
				for i := range v {
					v[i] = float32(rng.NormFloat64())
				}
				vs = append(vs, v)
			}
		}
		if n%50 == 0 && len(all[len(all)-1].chunks) > 0 { // exact duplicates: ties across entries
			vs = append(vs, all[len(all)-1].chunks[0].Vector)
		}
		all = append(all, oracleEntry{e: e, chunks: Embeddings(dim, vs...).Chunks, grants: grants[e.ID]})
	}
	Insert(t, st, es, grants)
	write(t, st, func(ctx context.Context, tx persist.Tx) error {
		for _, o := range all {
			if len(o.chunks) > 0 {
				if err := tx.SetEmbeddings(ctx, o.e.ID, persist.Embeddings{Model: "m", Dim: dim, Chunks: o.chunks}); err != nil {
					return err
				}
			}
		}
		return nil
	})

	accs := []persist.Access{alice, bob, {Principal: "carol", Groups: []string{"team"}}, {Principal: "nobody"}}
	const tol = 1e-5
	for qi := range testtier.RaceShare(120) {
		v := make([]float32, dim)
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		if qi%20 == 0 { // exactly on a stored vector
			for o := all[rng.IntN(len(all))]; len(o.chunks) > 0; {
				v = o.chunks[0].Vector
				break
			}
		}
		var f persist.Filter
		switch rng.IntN(8) {
		case 0:
			f.ThreadID = threads[rng.IntN(len(threads))]
		case 1:
			f.Source = "agent"
			f.Tags = []string{tagSet[rng.IntN(4)]}
		case 2:
			start, end := At(rng.IntN(300)), At(rng.IntN(300))
			if end.Before(start) {
				start, end = end, start
			}
			f.Start, f.End = &start, &end
		case 3:
			for k := 0; k < 40; k++ {
				f.IDs = append(f.IDs, ID(1+rng.IntN(320)))
			}
		case 4:
			f.Meta = []persist.MetaCond{{Path: []string{"n"}, Op: "eq", Value: int64(rng.IntN(10))}}
		}
		acc := accs[rng.IntN(len(accs))]
		q := persist.VectorQuery{Filter: f, Vector: v, Limit: 1 + rng.IntN(30), Explain: true}
		res, err := nv.VectorSearch(ctx, acc, q)
		if err != nil {
			t.Fatalf("query %d: %v", qi, err)
		}
		want := oracle(t, all, acc, q)
		best := map[string]persist.VectorHit{}
		for _, h := range want {
			best[h.ID] = h
		}
		if n := min(len(want), q.Limit); len(res.Hits) != n {
			t.Fatalf("query %d (%+v): %d hits, want %d", qi, q.Filter, len(res.Hits), n)
		}
		seen := map[string]bool{}
		for i, h := range res.Hits {
			w, ok := best[h.ID]
			switch {
			case !ok:
				t.Fatalf("query %d: hit %s is not readable or does not match", qi, h.ID)
			case seen[h.ID]:
				t.Fatalf("query %d: hit %s twice", qi, h.ID)
			case math.Abs(h.Distance-want[i].Distance) > tol:
				t.Fatalf("query %d rank %d: distance %v, oracle %v", qi, i, h.Distance, want[i].Distance)
			case math.Abs(h.Distance-w.Distance) > tol:
				t.Fatalf("query %d: %s at %v, its best chunk is at %v", qi, h.ID, h.Distance, w.Distance)
			case math.Abs(w.Distance-h.Distance) <= tol && w.Start != h.Start && w.Distance != 0:
				t.Fatalf("query %d: %s best chunk starts at %d, oracle %d", qi, h.ID, h.Start, w.Start)
			}
			if i > 0 {
				p := res.Hits[i-1]
				if h.Distance < p.Distance || h.Distance == p.Distance && h.ID < p.ID {
					t.Fatalf("query %d: hits out of order at %d", qi, i)
				}
			}
			seen[h.ID] = true
		}
	}
}

// oracle returns every entry of all that acc reads and q.Filter matches
// with its best distance to q.Vector, nearest first.
func oracle(t testing.TB, all []oracleEntry, acc persist.Access, q persist.VectorQuery) []persist.VectorHit {
	readable := func(o oracleEntry) bool {
		if o.e.Owner == acc.Principal || o.e.Visibility == "public" {
			return true
		}
		for _, g := range o.grants {
			if g.PrincipalType == "user" && g.PrincipalID == acc.Principal ||
				g.PrincipalType == "group" && slices.Contains(acc.Groups, g.PrincipalID) {
				return true
			}
		}
		return false
	}
	matches := func(f persist.Filter, o oracleEntry) bool {
		e := o.e
		if f.ThreadID != "" && e.ThreadID != f.ThreadID || f.Source != "" && e.Source != f.Source {
			return false
		}
		if len(f.Tags) > 0 && !slices.ContainsFunc(f.Tags, func(tg string) bool { return slices.Contains(e.Tags, tg) }) {
			return false
		}
		if f.Start != nil && e.CreatedAt.Before(*f.Start) || f.End != nil && e.CreatedAt.After(*f.End) {
			return false
		}
		if f.IDs != nil && !slices.Contains(f.IDs, e.ID) {
			return false
		}
		if len(f.Meta) > 0 && string(e.Metadata) != string(meta(t, map[string]any{"n": f.Meta[0].Value})) {
			return false
		}
		return true
	}
	var out []persist.VectorHit
	for _, o := range all {
		if len(o.chunks) == 0 || !readable(o) || !matches(q.Filter, o) {
			continue
		}
		best := persist.VectorHit{ID: o.e.ID, Distance: math.Inf(1)}
		for _, c := range o.chunks {
			var sum float64
			for i := range c.Vector {
				d := float64(c.Vector[i]) - float64(q.Vector[i])
				sum += d * d
			}
			if d := math.Sqrt(sum); d < best.Distance || d == best.Distance && c.Start < best.Start {
				best.Distance, best.Chunk, best.Start, best.End = d, c.Index, c.Start, c.End
			}
		}
		out = append(out, best)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Distance != out[j].Distance {
			return out[i].Distance < out[j].Distance
		}
		return out[i].ID < out[j].ID
	})
	return out
}
