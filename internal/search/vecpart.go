package search

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/contextd/contextd/vector"
)

// The vector index is partitioned by access scope (catalog.ScopeOf: public,
// or an owner with its exact set of user and group grants), since whoever
// may read one entry of a scope may read all of it. Each scope of at least
// graphFrom chunks has an HNSW graph of its own; the chunks of the smaller
// scopes share one index, the pool, which is never walked: a search
// measures the caller's chunks of it one by one (vector.SearchKeys). A
// search visits only the scopes it may read, with its filters applied
// inside each, and merges their answers exactly (distance, then id), so
// what a caller gets is a function of the scopes it may read alone: the
// graph of a scope depends on the inserts and deletes of that scope only,
// and the pool's scan on the caller's chunks only. Another principal's
// private writes go to its own scope and leave every caller who cannot
// read them byte-identical results (TestVectorsScopeIndependence,
// TestOtherPrincipalsLeaveResultsByteIdentical). One graph of every
// principal's vectors, as before, made a walk for a caller of more than
// exactEntries entries route through, and be cut short by, vectors it
// cannot read.
//
// Memory per scope: a small scope is its bookkeeping alone (a roaring
// bitmap of its ordinals and a counter); its vectors are in the pool,
// whose links are the cheapest the graph allows (poolOptions), since no
// walk reads them. A graph is made when a scope reaches graphFrom chunks,
// from the pool's copies of its vectors (vector.Items: bit for bit the
// same distances), and given back to the pool when the scope falls below
// graphFrom/4, so a scope that shrinks keeps no large graph.

// graphFrom is the chunk count at which a scope gets a graph of its own.
// Below exactEntries readable entries a scope is scanned exactly in any
// case, so a graph pays off only above about that many chunks; 4,096 is
// also the least a graph allocates (vector's room), so a graph is never
// mostly empty.
var graphFrom = 4096

// vecScope is one access scope of the vector index.
type vecScope struct {
	key    string
	ords   *roaring.Bitmap // its entries that have chunks
	chunks int
	g      *vector.Index // nil: its chunks are in the pool
}

// partition holds the scopes, the pool and the graphs. The vector index's
// emu guards it: applies hold it for writing, searches for reading.
type partition struct {
	dim      int
	vo       vector.Options // the graphs'
	pool     *vector.Index
	scopes   map[string]*vecScope
	byOrd    []*vecScope     // per catalog ordinal with chunks
	graphs   []*vecScope     // the scopes with a graph, by key
	inGraphs *roaring.Bitmap // the ordinals of those scopes
}

// poolOptions are the pool's: the graphs' storage with the cheapest links
// (M 2, efConstruction 2, no kept pruned candidates), since the pool is
// only ever scanned by key.
func poolOptions(vo vector.Options) vector.Options {
	vo.M, vo.EfConstruction, vo.KeepPruned = 2, 2, false
	return vo
}

func newPartition(dim int, vo vector.Options) (*partition, error) {
	pool, err := vector.New(dim, poolOptions(vo))
	if err != nil {
		return nil, fmt.Errorf("vector index: %w", err)
	}
	return &partition{dim: dim, vo: vo, pool: pool, scopes: map[string]*vecScope{}, inGraphs: roaring.New()}, nil
}

// len is the number of chunk vectors held.
func (p *partition) len() int {
	n := p.pool.Len()
	for _, s := range p.graphs {
		n += s.g.Len()
	}
	return n
}

// scopeOf is the scope of the entry of ordinal ord, nil when it has no
// chunks.
func (p *partition) scopeOf(ord uint32) *vecScope {
	if int(ord) < len(p.byOrd) {
		return p.byOrd[ord]
	}
	return nil
}

// scope returns the scope of key, made empty when new.
func (p *partition) scope(key string) *vecScope {
	s := p.scopes[key]
	if s == nil {
		s = &vecScope{key: key, ords: roaring.New()}
		p.scopes[key] = s
	}
	return s
}

// index is where the scope's chunks are.
func (p *partition) index(s *vecScope) *vector.Index {
	if s.g != nil {
		return s.g
	}
	return p.pool
}

// enter records that the entry of ordinal ord, with n chunks now in the
// scope's index, belongs to s.
func (p *partition) enter(s *vecScope, ord uint32, n int) {
	if int(ord) >= len(p.byOrd) {
		p.byOrd = append(p.byOrd, make([]*vecScope, int(ord)+1-len(p.byOrd))...)
	}
	p.byOrd[ord] = s
	s.ords.Add(ord)
	s.chunks += n
	if s.g != nil {
		p.inGraphs.Add(ord)
	}
}

// leave removes the entry of ordinal ord and its chunk keys from its
// scope and index; a scope left empty is forgotten, one left small gives
// its graph back to the pool.
func (p *partition) leave(ord uint32, keys []uint64, cm *chunkMap) error {
	s := p.scopeOf(ord)
	if s == nil {
		return nil
	}
	ix := p.index(s)
	for _, k := range keys {
		ix.Delete(k)
	}
	p.byOrd[ord] = nil
	s.ords.Remove(ord)
	s.chunks -= len(keys)
	p.inGraphs.Remove(ord)
	switch {
	case s.chunks <= 0:
		p.dropGraph(s)
		delete(p.scopes, s.key)
	case s.g != nil && s.chunks < graphFrom/4:
		return p.demote(s, cm)
	}
	return nil
}

// keysOf is every chunk key of s, ascending: the order its chunks move in.
func (p *partition) keysOf(s *vecScope, cm *chunkMap) []uint64 {
	keys := make([]uint64, 0, s.chunks)
	for it := s.ords.Iterator(); it.HasNext(); {
		keys = append(keys, cm.keys(it.Next())...)
	}
	slices.Sort(keys)
	return keys
}

// promote gives s a graph of its own, built from the pool's copies of its
// chunks (one AddBatch, in key order: the graph is then a function of the
// scope's chunks, whatever else the pool holds).
func (p *partition) promote(s *vecScope, cm *chunkMap) error {
	g, err := vector.New(p.dim, p.vo)
	if err != nil {
		return fmt.Errorf("vector index: %w", err)
	}
	keys := p.keysOf(s, cm)
	if err := g.AddBatch(p.pool.Items(keys)); err != nil {
		return fmt.Errorf("vector index: scope graph: %w", err)
	}
	for _, k := range keys {
		p.pool.Delete(k)
	}
	if p.pool.Len() == 0 {
		// A pool left empty (one principal's first 4,096 chunks moved
		// out) gives back its arrays: vector grows them by at least 4,096
		// nodes, about 1 MiB of codes and lists that would stay unused.
		if pool, err := vector.New(p.dim, poolOptions(p.vo)); err == nil {
			p.pool = pool
		}
	}
	p.setGraph(s, g)
	return nil
}

// setGraph makes g the graph of s.
func (p *partition) setGraph(s *vecScope, g *vector.Index) {
	s.g = g
	i, _ := slices.BinarySearchFunc(p.graphs, s.key, func(a *vecScope, k string) int { return strings.Compare(a.key, k) })
	p.graphs = slices.Insert(p.graphs, i, s)
	p.inGraphs.Or(s.ords)
}

// demote moves the chunks of s back to the pool and drops its graph.
func (p *partition) demote(s *vecScope, cm *chunkMap) error {
	if err := p.pool.AddBatch(s.g.Items(p.keysOf(s, cm))); err != nil {
		return fmt.Errorf("vector index: scope graph: %w", err)
	}
	p.dropGraph(s)
	return nil
}

// dropGraph forgets the graph of s (its chunks are elsewhere or gone).
func (p *partition) dropGraph(s *vecScope) {
	if s.g == nil {
		return
	}
	s.g = nil
	p.graphs = slices.DeleteFunc(p.graphs, func(x *vecScope) bool { return x == s })
	p.inGraphs.AndNot(s.ords)
}

// pendingEntry is one entry's chunks queued for the partition.
type pendingEntry struct {
	ord   uint32
	scope string
	keys  []uint64 // sorted
	items []vector.BatchItem
	refs  []pendingChunk
}

// add puts the queued entries' chunks into their scopes' indexes: the
// scopes that reach graphFrom get their graph first, then the entries of
// the pool go in with one AddBatch and each graph's with one, the pool
// first and the graphs by scope key. The entries whose index refuses its
// batch (AddBatch checks every item first and then takes none) keep no
// chunks, so a retry of the change-log batch adds them; the error names
// them.
func (p *partition) add(es []pendingEntry, cm *chunkMap) error {
	more := map[*vecScope]int{}
	for i := range es {
		more[p.scope(es[i].scope)] += len(es[i].items)
	}
	var errs []error
	for s, n := range more {
		if s.g == nil && s.chunks+n >= graphFrom {
			if err := p.promote(s, cm); err != nil {
				errs = append(errs, err)
			}
		}
	}
	groups := map[*vector.Index][]int{}
	var order []*vector.Index
	for i := range es {
		ix := p.index(p.scopes[es[i].scope])
		if groups[ix] == nil {
			order = append(order, ix)
		}
		groups[ix] = append(groups[ix], i)
	}
	slices.SortFunc(order, func(a, b *vector.Index) int {
		return strings.Compare(p.keyOf(a), p.keyOf(b))
	})
	for _, ix := range order {
		var items []vector.BatchItem
		for _, i := range groups[ix] {
			items = append(items, es[i].items...)
		}
		if err := ix.AddBatch(items); err != nil {
			errs = append(errs, fmt.Errorf("vector index: %w", err))
			continue
		}
		for _, i := range groups[ix] {
			e := &es[i]
			for _, r := range e.refs {
				cm.put(r.key, r.ord, r.sp)
			}
			cm.setKeys(e.ord, e.keys)
			p.enter(p.scopes[e.scope], e.ord, len(e.keys))
		}
	}
	for s := range more {
		if s.chunks == 0 {
			p.dropGraph(s)
			delete(p.scopes, s.key)
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	return nil
}

// keyOf orders the indexes of one add: the pool ("") first, then the
// graphs by scope key.
func (p *partition) keyOf(ix *vector.Index) string {
	if ix == p.pool {
		return ""
	}
	for _, s := range p.graphs {
		if s.g == ix {
			return s.key
		}
	}
	return ""
}

// searchPart is one index's answer for a search: the best entries by
// their best chunk.
type searchPart struct {
	ix    *vector.Index
	keys  []uint64              // SearchKeys over these, or
	allow func(key uint64) bool // a graph search with this filter (nil: all)
	count int                   // chunks allowed, for the graph's switch
}

// search returns the best depth entries of the allowed set for q, from
// the scopes the caller may read: the pool's chunks of the allowed
// entries measured one by one, and each graph scope holding allowed
// entries searched by itself (measured one by one too while it has at
// most exactEntries allowed entries). The caller holds emu (read).
func (p *partition) search(ctx context.Context, q []float32, allowed *roaring.Bitmap, depth int, cm *chunkMap) (map[uint32]VectorHit, error) {
	best := map[uint32]VectorHit{}
	var parts []searchPart
	rest := allowed
	if !p.inGraphs.IsEmpty() {
		rest = roaring.AndNot(allowed, p.inGraphs)
		for _, s := range p.graphs {
			n := allowed.AndCardinality(s.ords)
			if n == 0 {
				continue
			}
			if n <= uint64(exactEntries) {
				parts = append(parts, searchPart{ix: s.g, keys: keysOf(roaring.And(allowed, s.ords), cm)})
				continue
			}
			part := searchPart{ix: s.g, count: max(1, int(float64(n)*float64(s.chunks)/float64(s.ords.GetCardinality())))}
			if n < s.ords.GetCardinality() {
				sub := roaring.And(allowed, s.ords)
				part.allow = func(key uint64) bool {
					ord, ok := cm.ordinal(key)
					return ok && sub.Contains(ord)
				}
			}
			parts = append(parts, part)
		}
	}
	if !rest.IsEmpty() {
		parts = append(parts, searchPart{ix: p.pool, keys: keysOf(rest, cm)})
	}
	for _, part := range parts {
		if err := part.run(ctx, q, depth, cm, best); err != nil {
			return nil, err
		}
	}
	return best, nil
}

// keysOf is the chunk keys of the ordinals of b.
func keysOf(b *roaring.Bitmap, cm *chunkMap) []uint64 {
	keys := make([]uint64, 0, b.GetCardinality())
	for it := b.Iterator(); it.HasNext(); {
		keys = append(keys, cm.keys(it.Next())...)
	}
	return keys
}

// run adds the part's best depth entries to best, asking for twice the
// chunks until depth distinct entries are found or every allowed chunk
// was returned (a graph search: or it was asked for all of them).
func (part *searchPart) run(ctx context.Context, q []float32, depth int, cm *chunkMap, best map[uint32]VectorHit) error {
	if part.keys != nil && len(part.keys) == 0 {
		return nil
	}
	mine := map[uint32]VectorHit{}
	for k := depth; ; k *= 2 {
		var hits []vector.Hit
		var err error
		if part.keys != nil {
			hits, err = part.ix.SearchKeys(ctx, q, k, part.keys)
		} else {
			hits, err = part.ix.Search(ctx, q, k, vector.SearchOptions{Allow: part.allow, AllowCount: part.count})
		}
		if err != nil {
			return fmt.Errorf("vector search: %w", err)
		}
		clear(mine)
		for _, h := range hits {
			ord, r, _ := cm.ref(h.Key) // allowed, so present
			c := VectorHit{Distance: float64(h.Distance), Chunk: r.index, Start: r.start, End: r.end}
			if b, ok := mine[ord]; ok && (b.Distance < c.Distance || b.Distance == c.Distance && b.Start <= c.Start) {
				continue
			}
			mine[ord] = c
		}
		if len(mine) >= depth || len(hits) < k || part.keys == nil && k >= part.count {
			break
		}
	}
	for ord, h := range mine {
		best[ord] = h // an entry is in one scope, so in one part
	}
	return nil
}
