package search

import (
	"cmp"
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
//
// A graph's shape depends on how its chunks were grouped into AddBatch
// calls, and the change log's batches mix every principal's writes: had
// a scope's new chunks gone into its graph one change-log batch at a
// time, another principal's writes interleaved with the caller's own
// would have changed how the caller's graph was built (never what is in
// it). So every new chunk enters the pool first, and settle moves a
// scope's pooled entries into its graph in groups cut from the scope's
// own entries alone: in key order, the first group when the scope
// reaches graphFrom chunks, then one each time graphGroup more have
// gathered, each cut at the entry that completes it. Keys grow with the
// commits that made them, so the entries of a scope arrive in key order
// and the groups are the same however the log was batched. Until it
// moves, a chunk is measured exactly in the pool, as a small scope's
// are.

// graphFrom is the chunk count at which a scope gets a graph of its own.
// Below exactEntries readable entries a scope is scanned exactly in any
// case, so a graph pays off only above about that many chunks; 4,096 is
// also the least a graph allocates (vector's room), so a graph is never
// mostly empty.
var graphFrom = 4096

// graphGroup is how many chunks of a graph scope gather in the pool
// before they move into its graph together (settle): one full round of
// AddBatch (vector's batchMax). The pool measures them one by one
// meanwhile. At 1,024 the 100k bench's semantic median rose by 0.08-0.19
// ms against the graph alone (672 chunks waiting, scanned by every
// search); at 512 at most 511 wait.
var graphGroup = 512

// vecScope is one access scope of the vector index.
type vecScope struct {
	key    string
	ords   *roaring.Bitmap // its entries that have chunks
	chunks int
	g      *vector.Index // nil: its chunks are in the pool
	// gords are the entries whose chunks are in g (gchunks of them); the
	// others wait in the pool (settle).
	gords   *roaring.Bitmap
	gchunks int
}

// partition holds the scopes, the pool and the graphs. The vector index's
// emu guards it: applies hold it for writing, searches for reading.
type partition struct {
	dim      int
	vo       vector.Options // the graphs'
	int8From int            // a scope graph of this many chunks holds 8-bit vectors (compact); 0 never
	pool     *vector.Index
	scopes   map[string]*vecScope
	byOrd    []*vecScope     // per catalog ordinal with chunks
	graphs   []*vecScope     // the scopes with a graph, by key
	inGraphs *roaring.Bitmap // the ordinals whose chunks are in a graph
}

// poolOptions are the pool's: the graphs' storage with the cheapest links
// (M 2, efConstruction 2, no kept pruned candidates), since the pool is
// only ever scanned by key.
func poolOptions(vo vector.Options) vector.Options {
	vo.M, vo.EfConstruction, vo.KeepPruned = 2, 2, false
	return vo
}

func newPartition(dim int, vo vector.Options, int8From int) (*partition, error) {
	pool, err := vector.New(dim, poolOptions(vo))
	if err != nil {
		return nil, fmt.Errorf("vector index: %w", err)
	}
	return &partition{dim: dim, vo: vo, int8From: int8From, pool: pool, scopes: map[string]*vecScope{}, inGraphs: roaring.New()}, nil
}

// The 8-bit graph (vector.Options.Int8) holds a chunk in 104 instead of
// 400 bytes at 100 dimensions: at one million entries the float32
// vectors were 383 of the 827 MiB of Go heap after a restart, and the 1M
// bench's RSS after the searches 659 MiB with 8-bit vectors (2026-12-05),
// the difference between fitting in 700 MB and not. It costs recall@10
// 0.9754 against 0.9830 on float32 (vector's TestParagraphRecall, 20k
// paragraphs) and moves the semantic leg's scores by up to about 3e-3,
// enough to swap near ties. So a graph keeps float32 until its scope's
// vectors pass a memory budget (quant.Settings.GraphInt8MiB, 128 MiB by
// default), and the pool keeps float32 always: what a caller gets stays a
// function of the scopes it may read alone, since the switch depends on
// the scope's own chunk count, never on another principal's. Below the
// budget the context tools' hybrid ranking matches the knowledge tools'
// (int16 codes) on the same corpus (internal/lab/keval's
// TestContextAndKnowledgeHybridAgree).

// graph8 is the graphs' 8-bit storage, or false when the graphs run on
// codes (COMPRESSION_KEEP_FLOAT=false) or the budget says never.
func (p *partition) graph8() (vector.Options, bool) { return graph8Options(p.vo, p.int8From) }

// graph8Options is the 8-bit form of the graphs' options vo under the
// budget int8From (graph8; loadSnapshot asks before a partition exists).
func graph8Options(vo vector.Options, int8From int) (vector.Options, bool) {
	o := vo
	o.Int8 = true
	return o, int8From > 0 && vo.Quantizer == nil
}

// compact converts the graph of s to 8-bit storage once s holds
// int8From chunks in it. A converted graph stays 8-bit: its float32
// vectors are gone (a restart rebuilds from SQL only without a snapshot).
func (p *partition) compact(s *vecScope) {
	if o, ok := p.graph8(); ok && s.g != nil && s.gchunks >= p.int8From {
		s.g.AdoptStorage(o)
	}
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
		s = &vecScope{key: key, ords: roaring.New(), gords: roaring.New()}
		p.scopes[key] = s
	}
	return s
}

// index is where the chunks of the entry of ordinal ord of s are.
func (p *partition) index(s *vecScope, ord uint32) *vector.Index {
	if s.g != nil && s.gords.Contains(ord) {
		return s.g
	}
	return p.pool
}

// enter records that the entry of ordinal ord, with n chunks now in the
// pool (or, inGraph, in the graph of s), belongs to s.
func (p *partition) enter(s *vecScope, ord uint32, n int, inGraph bool) {
	if int(ord) >= len(p.byOrd) {
		p.byOrd = append(p.byOrd, make([]*vecScope, int(ord)+1-len(p.byOrd))...)
	}
	p.byOrd[ord] = s
	s.ords.Add(ord)
	s.chunks += n
	if inGraph {
		s.gords.Add(ord)
		s.gchunks += n
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
	ix := p.index(s, ord)
	for _, k := range keys {
		ix.Delete(k)
	}
	p.byOrd[ord] = nil
	s.ords.Remove(ord)
	s.chunks -= len(keys)
	if ix != p.pool {
		s.gords.Remove(ord)
		s.gchunks -= len(keys)
		p.inGraphs.Remove(ord)
	}
	switch {
	case s.chunks <= 0:
		p.dropGraph(s)
		delete(p.scopes, s.key)
	case s.g != nil && s.chunks < graphFrom/4:
		return p.demote(s, cm)
	}
	return nil
}

// graphKeys is every chunk key of the graph of s, ascending.
func (p *partition) graphKeys(s *vecScope, cm *chunkMap) []uint64 {
	keys := make([]uint64, 0, s.gchunks)
	for it := s.gords.Iterator(); it.HasNext(); {
		keys = append(keys, cm.keys(it.Next())...)
	}
	slices.Sort(keys)
	return keys
}

// settle moves the pooled entries of s into its graph, making the graph
// when s reaches graphFrom chunks: in key order (an entry's first key),
// in groups cut at the entry that brings a group to graphFrom (the first)
// or graphGroup (the next) chunks; what is left waits for the next
// entries. Each group is one AddBatch from the pool's copies of its
// vectors (bit for bit the same distances).
func (p *partition) settle(s *vecScope, cm *chunkMap) error {
	pooled := s.chunks - s.gchunks
	if s.g == nil && s.chunks < graphFrom || s.g != nil && pooled < graphGroup {
		return nil
	}
	ents := roaring.AndNot(s.ords, s.gords).ToArray()
	slices.SortFunc(ents, func(a, b uint32) int { return cmp.Compare(cm.keys(a)[0], cm.keys(b)[0]) })
	for len(ents) > 0 {
		need := graphGroup
		if s.g == nil {
			need = graphFrom
		}
		n, cut := 0, 0
		for cut < len(ents) && n < need {
			n += len(cm.keys(ents[cut]))
			cut++
		}
		if n < need {
			return nil
		}
		if err := p.move(s, ents[:cut], n, cm); err != nil {
			return err
		}
		ents = ents[cut:]
	}
	return nil
}

// move puts the n chunks of the pooled entries ords of s into its graph,
// made first when s has none.
func (p *partition) move(s *vecScope, ords []uint32, n int, cm *chunkMap) error {
	keys := make([]uint64, 0, n)
	for _, o := range ords {
		keys = append(keys, cm.keys(o)...)
	}
	slices.Sort(keys)
	g := s.g
	if g == nil {
		var err error
		if g, err = vector.New(p.dim, p.vo); err != nil {
			return fmt.Errorf("vector index: %w", err)
		}
	}
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
	if s.g == nil {
		p.setGraph(s, g)
	}
	for _, o := range ords {
		s.gords.Add(o)
		p.inGraphs.Add(o)
	}
	s.gchunks += n
	p.compact(s)
	return nil
}

// setGraph makes g the graph of s.
func (p *partition) setGraph(s *vecScope, g *vector.Index) {
	s.g = g
	i, _ := slices.BinarySearchFunc(p.graphs, s.key, func(a *vecScope, k string) int { return strings.Compare(a.key, k) })
	p.graphs = slices.Insert(p.graphs, i, s)
}

// demote moves the chunks of s back to the pool and drops its graph.
func (p *partition) demote(s *vecScope, cm *chunkMap) error {
	items := s.g.Items(p.graphKeys(s, cm))
	for i := range items {
		items[i].Bytes = nil // an 8-bit graph's: the float32 pool takes Vec, their values
	}
	if err := p.pool.AddBatch(items); err != nil {
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
	p.inGraphs.AndNot(s.gords)
	s.gords.Clear()
	s.gchunks = 0
}

// pendingEntry is one entry's chunks queued for the partition.
type pendingEntry struct {
	ord   uint32
	scope string
	keys  []uint64 // sorted
	items []vector.BatchItem
	refs  []pendingChunk
}

// add puts the queued entries' chunks into the pool with one AddBatch,
// then settles each scope they belong to, by scope key. When the pool
// refuses the batch (AddBatch checks every item first and then takes
// none), the entries go in one by one, and those refused keep no chunks,
// so a retry of the change-log batch adds them; the error names them.
func (p *partition) add(es []pendingEntry, cm *chunkMap) error {
	var items []vector.BatchItem
	for i := range es {
		items = append(items, es[i].items...)
	}
	var errs []error
	taken := es
	if err := p.pool.AddBatch(items); err != nil {
		taken = nil
		for i := range es {
			if err := p.pool.AddBatch(es[i].items); err != nil {
				errs = append(errs, fmt.Errorf("vector index: %w", err))
				continue
			}
			taken = append(taken, es[i])
		}
	}
	var touched []*vecScope
	for i := range taken {
		e := &taken[i]
		for _, r := range e.refs {
			cm.put(r.key, r.ord, r.sp)
		}
		cm.setKeys(e.ord, e.keys)
		s := p.scope(e.scope)
		p.enter(s, e.ord, len(e.keys), false)
		if !slices.Contains(touched, s) {
			touched = append(touched, s)
		}
	}
	slices.SortFunc(touched, func(a, b *vecScope) int { return strings.Compare(a.key, b.key) })
	for _, s := range touched {
		if err := p.settle(s, cm); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
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
	// Sized for depth entries (up to maxPresize): grown from empty, the
	// maps of a 1M hybrid call's vector leg (200 entries) rehashed their
	// way up, 0.07 ms of its 1.17 ms of CPU (2026-12-06).
	best := make(map[uint32]VectorHit, min(max(depth, 0), maxPresize))
	var parts []searchPart
	rest := allowed
	if !p.inGraphs.IsEmpty() {
		rest = roaring.AndNot(allowed, p.inGraphs)
		for _, s := range p.graphs {
			n := allowed.AndCardinality(s.gords)
			if n == 0 {
				continue
			}
			if n <= uint64(exactEntries) {
				parts = append(parts, searchPart{ix: s.g, keys: keysOf(roaring.And(allowed, s.gords), cm)})
				continue
			}
			part := searchPart{ix: s.g, count: max(1, int(float64(n)*float64(s.gchunks)/float64(s.gords.GetCardinality())))}
			if n < s.gords.GetCardinality() {
				sub := roaring.And(allowed, s.gords)
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

// maxPresize caps the entries a search's maps are sized for ahead.
const maxPresize = 1024

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
	mine := make(map[uint32]VectorHit, min(max(depth, 0), maxPresize))
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
