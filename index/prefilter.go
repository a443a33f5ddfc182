package index

// The allowed-set prefilter of the in-process full-text index.
//
// The readable set and the structural filters live in a catalog
// (index/catalog): roaring bitmaps of catalog ordinals, maintained by
// Apply from the same documents it indexes. A search asks the catalog for
// the allowed ordinals (microseconds, see BenchmarkAllowed) and Bleve
// searches only inside them.
//
// How the ordinal bitmap reaches Bleve. Bleve (scorch) numbers documents
// globally per index snapshot: a segment's local document number plus the
// segment's offset. Segments are immutable, so each segment gets, once, an
// array from its local document numbers to catalog ordinals (read from the
// segment's _id values); the arrays are cached by segment id and dropped
// when their segment leaves the index (merged away); building one costs
// about 0.4 µs per document, paid by the first search after a merge. Two
// plans then apply the set:
//
//   - a large allowed set: the text query's searcher is wrapped in a
//     filtering searcher whose test per candidate is an array load and a
//     bitmap membership test (tens of nanoseconds), so the prefilter adds
//     nothing per grant, group or filter value to the search;
//   - at most skipMax allowed entries (a thread, a few grants): their
//     documents are found in each segment's sorted ordinal-to-document
//     array and the text searcher is advanced from one to the next
//     (skipSearcher), so the search no longer visits every text match.
//
// Both keep the text searcher's scores.
//
// Alternatives measured or weighed (README, "Access and sharing", and
// BenchmarkPrefilteredSearch):
//
//   - the previous filter, a Bleve disjunction over the access terms
//     (o:<p>, u:<p>, public, g:<group> ...) conjoined with filter terms,
//     opens one term reader per term and segment and walks every posting
//     of every term: 2-20 ms per search at 100k entries with one grant,
//     0.5-1.8 s with 10,000 grants (kept as Query.TermPrefilter for the
//     side-by-side benchmark and as a test oracle);
//   - a DocID query of the allowed ids looks every id up in every
//     segment's _id dictionary: linear in the allowed set (≈ 1 µs per id
//     and segment), fine for a thread, far too slow for a readable set of
//     10,000 entries;
//   - the ordinal as an indexed field would be the same disjunction, and
//     ordinals are not stable across restarts (the catalog is rebuilt).
//
// Consistency: a search holds ix.view for reading from computing the
// allowed set until Bleve's answer, and Apply holds it for writing while
// it changes Bleve and the catalog, so a search never pairs a catalog
// state with a Bleve snapshot of another batch (ordinals are reused). A
// document live in a segment keeps its id's ordinal for as long as it is
// live: an id changes ordinal only through Remove, which Apply pairs with
// the document's deletion, so a cached array never needs updating.

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"
	bindex "github.com/blevesearch/bleve_index_api"

	"github.com/contextd/contextd/index/catalog"
)

// noOrd marks a local document with no catalog ordinal (deleted when the
// array was built): never allowed.
const noOrd = math.MaxUint32

// segOrds is the cached local-document-to-ordinal array of one segment.
type segOrds struct {
	once sync.Once
	ords []uint32
	inv  []uint64 // ord<<32 | local of the documents with an ordinal, sorted
	err  error
}

// ordCache holds the arrays of the segments of the current index.
type ordCache struct {
	mu   sync.Mutex
	segs map[uint64]*segOrds
}

func (c *ordCache) reset() {
	c.mu.Lock()
	c.segs = nil
	c.mu.Unlock()
}

// get returns the entry of segment id (created empty) and drops the
// entries of segments not in live when the cache holds too many.
func (c *ordCache) get(id uint64, live []*scorch.SegmentSnapshot) *segOrds {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.segs == nil {
		c.segs = map[uint64]*segOrds{}
	}
	e := c.segs[id]
	if e == nil {
		if len(c.segs) >= 2*len(live)+8 {
			c.pruneLocked(live)
		}
		e = &segOrds{}
		c.segs[id] = e
	}
	return e
}

// prune drops the entries of segments not in live (the idle release:
// after a load's merges, the arrays of merged-away segments stayed until
// the cache held twice the live segments).
func (c *ordCache) prune(live []*scorch.SegmentSnapshot) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pruneLocked(live)
}

func (c *ordCache) pruneLocked(live []*scorch.SegmentSnapshot) {
	keep := make(map[uint64]bool, len(live))
	for _, s := range live {
		keep[s.Id()] = true
	}
	for k := range c.segs {
		if !keep[k] {
			delete(c.segs, k)
		}
	}
}

// segmentOrds returns the ordinal arrays of seg, building them once.
func (ix *Index) segmentOrds(seg *scorch.SegmentSnapshot, live []*scorch.SegmentSnapshot) (*segOrds, error) {
	e := ix.ords.get(seg.Id(), live)
	e.once.Do(func() {
		s := seg.Segment()
		n := s.Count()
		ords := make([]uint32, n)
		del := deletions(seg)
		for i := range n {
			ords[i] = noOrd
			if del != nil && del.Contains(uint32(i)) {
				continue
			}
			id, err := s.DocID(i)
			if err != nil {
				e.err = fmt.Errorf("index: segment %d document %d: %w", seg.Id(), i, err)
				return
			}
			if o, ok := ix.cat.Ordinal(string(id)); ok {
				ords[i] = o
			}
		}
		inv := make([]uint64, 0, n)
		for i, o := range ords {
			if o != noOrd {
				inv = append(inv, uint64(o)<<32|uint64(i))
			}
		}
		slices.Sort(inv)
		e.ords, e.inv = ords, inv
	})
	return e, e.err
}

// allowedQuery is the text query restricted to the allowed ordinals.
type allowedQuery struct {
	ix      *Index
	inner   query.Query
	allowed *roaring.Bitmap
}

// MarshalJSON shows the plan: the text query inside the catalog prefilter.
func (q *allowedQuery) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]any{
		"must":   q.inner,
		"filter": map[string]any{"catalog_allowed": q.allowed.GetCardinality()},
	})
}

// Searcher wraps the text query's searcher in the ordinal filter of the
// snapshot i.
func (q *allowedQuery) Searcher(ctx context.Context, i bindex.IndexReader, m mapping.IndexMapping, o search.SearcherOptions) (search.Searcher, error) {
	snap, ok := i.(*scorch.IndexSnapshot)
	if !ok {
		return nil, fmt.Errorf("index: prefilter needs a scorch snapshot, got %T", i)
	}
	if q.allowed.IsEmpty() {
		return searcher.NewMatchNoneSearcher(i)
	}
	segs := snap.Segments()
	offsets := segmentOffsets(segs)
	maps := make([]*segOrds, len(segs))
	ords := make([][]uint32, len(segs))
	for k, s := range segs {
		if s.Count() == 0 {
			continue // every document deleted: nothing to map
		}
		e, err := q.ix.segmentOrds(s, segs)
		if err != nil {
			return nil, err
		}
		maps[k], ords[k] = e, e.ords
	}
	inner, err := q.inner.Searcher(ctx, i, m, o)
	if err != nil {
		return nil, err
	}
	allowed := q.allowed
	if allowed.GetCardinality() <= skipMax {
		// A small allowed set (a thread, a few grants): find its
		// documents and advance the text searcher to each, skipping the
		// postings in between.
		var docs []uint64
		it := allowed.Iterator()
		for it.HasNext() {
			o := uint64(it.Next())
			for k, e := range maps {
				if e == nil {
					continue
				}
				j, found := slices.BinarySearchFunc(e.inv, o<<32, func(x, t uint64) int { return cmp.Compare(x>>32, t>>32) })
				for ; found && j < len(e.inv) && e.inv[j]>>32 == o; j++ {
					docs = append(docs, offsets[k]+e.inv[j]&math.MaxUint32)
				}
			}
		}
		slices.Sort(docs)
		return &skipSearcher{inner: inner, docs: docs}, nil
	}
	last := 0 // the segment of the previous candidate: candidates ascend
	return searcher.NewFilteringSearcher(ctx, inner, func(_ *search.SearchContext, d *search.DocumentMatch) bool {
		n := d.IndexInternalID.Value()
		if n < offsets[last] || n >= offsets[last+1] {
			if last, _ = segmentOf(offsets, n); last >= len(segs) {
				last = 0
				return false
			}
		}
		a := ords[last]
		local := n - offsets[last]
		if local >= uint64(len(a)) {
			return false
		}
		o := a[local]
		return o != noOrd && allowed.Contains(o)
	}), nil
}

// skipMax is the largest allowed set searched by advancing the text
// searcher to each allowed document (skipSearcher) instead of testing
// every text match (the filtering searcher): an advance costs about a
// microsecond, a test tens of nanoseconds plus the scoring of the match,
// and a common query matches tens of thousands of entries. A variable
// for the tests, which run both plans.
var skipMax uint64 = 1024

// skipSearcher returns the matches of inner among docs (sorted global
// document numbers), advancing inner from one allowed document to the
// next. The scores are inner's.
type skipSearcher struct {
	inner search.Searcher
	docs  []uint64
	pos   int
}

func (s *skipSearcher) Next(ctx *search.SearchContext) (*search.DocumentMatch, error) {
	for s.pos < len(s.docs) {
		m, err := s.inner.Advance(ctx, bindex.NewIndexInternalID(nil, s.docs[s.pos]))
		if err != nil || m == nil {
			s.pos = len(s.docs)
			return nil, err
		}
		n := m.IndexInternalID.Value()
		j, _ := slices.BinarySearch(s.docs[s.pos:], n)
		s.pos += j
		if s.pos < len(s.docs) && s.docs[s.pos] == n {
			s.pos++
			return m, nil
		}
		ctx.DocumentMatchPool.Put(m)
	}
	return nil, nil
}

func (s *skipSearcher) Advance(ctx *search.SearchContext, id bindex.IndexInternalID) (*search.DocumentMatch, error) {
	j, _ := slices.BinarySearch(s.docs, id.Value())
	s.pos = max(s.pos, j)
	return s.Next(ctx)
}

func (s *skipSearcher) Close() error               { return s.inner.Close() }
func (s *skipSearcher) Weight() float64            { return s.inner.Weight() }
func (s *skipSearcher) SetQueryNorm(n float64)     { s.inner.SetQueryNorm(n) }
func (s *skipSearcher) Count() uint64              { return s.inner.Count() }
func (s *skipSearcher) Min() int                   { return s.inner.Min() }
func (s *skipSearcher) Size() int                  { return s.inner.Size() + 8*len(s.docs) }
func (s *skipSearcher) DocumentMatchPoolSize() int { return s.inner.DocumentMatchPoolSize() }

// catalogQuery is q's caller and filters as a catalog query.
func catalogQuery(q Query) catalog.Query {
	return catalog.Query{
		Principal: q.Access.Principal, Groups: q.Access.Groups,
		ThreadID: q.ThreadID, Source: q.Source, ContentType: q.Content, Tags: nilIfEmpty(q.Tags),
		Start: q.Start, End: q.End, IDs: q.IDs, OmitKnowledge: q.OmitKnowledge,
	}
}

// nilIfEmpty: the index treats an empty tag list as no tag filter.
func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

// catalogEntry is the catalog's view of d, whose text is length index
// terms long.
func catalogEntry(d *Doc, length int) catalog.Entry {
	return catalog.Entry{
		ID: d.ID, Owner: d.Owner, Public: d.Public, Readers: d.Readers,
		ThreadID: d.ThreadID, Source: d.Source, ContentType: d.ContentType,
		Tags: d.Tags, CreatedAt: d.CreatedAt, Length: uint32(length), Metadata: d.Metadata,
		Summarized: d.Summarized, Images: d.Images, Nodes: d.Nodes,
	}
}

// Catalog is the index's catalog of access and filter bitmaps (read-only
// use: Apply maintains it).
func (ix *Index) Catalog() *catalog.Catalog { return ix.cat }

// LoadCatalog puts docs into the catalog without indexing them: the
// catalog of an index opened from its snapshot (the catalog lives in
// memory only) is loaded from SQL before the first search.
func (ix *Index) LoadCatalog(docs []Doc) {
	ix.view.Lock()
	defer ix.view.Unlock()
	for i := range docs {
		ix.cat.Put(catalogEntry(&docs[i], 0))
	}
	// Arrays built before the load mapped these ids to nothing.
	ix.ords.reset()
	ix.lensMu.Lock()
	ix.lensStale = true
	ix.lensMu.Unlock()
}

// applyCatalog mirrors one Apply batch in the catalog, as Bleve applies
// it: deletes first, then upserts (an upsert wins over a delete of the
// same id); lens are the upserts' text lengths.
func (ix *Index) applyCatalog(upserts []Doc, lens []int, deletes []string) {
	for _, id := range deletes {
		ix.cat.Remove(id)
	}
	for i := range upserts {
		ix.cat.Put(catalogEntry(&upserts[i], lens[i]))
	}
}
