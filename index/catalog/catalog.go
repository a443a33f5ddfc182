// Package catalog owns the in-memory readable-set and filter bitmaps of an
// in-process index.
//
// Every entry gets a dense ordinal (uint32). The catalog keeps one roaring
// bitmap of ordinals per access principal and per structural filter value:
// public entries, entries per owner, per user grant, per group grant, per
// thread, per source, per content type and per tag. The allowed set of a
// search is then a handful of bitmap unions and intersections:
//
//	READ(p, groups) = public ∪ owner[p] ∪ user[p] ∪ ⋃ group[g]
//	Allowed(q)      = READ ∩ thread ∩ source ∩ ctype ∩ (⋃ tag[t]) ∩ dates ∩ ids
//
// A group's ordinals are kept inline while they are few (posting), which
// is what makes a caller with thousands of groups cheap.
//
//	c := catalog.New()
//	ord := c.Put(catalog.Entry{ID: id, Owner: "ann", Readers: []string{"g:eng"}, ThreadID: "t1"})
//	ok := c.Allowed(catalog.Query{Principal: "bob", Groups: []string{"eng"}, ThreadID: "t1"}).Contains(ord)
//
// Per entry the catalog keeps its id, a shape number (the entry's owner,
// grants, thread, source, content type and tags, whether it has a summary
// and how many images and node summaries, kept once per distinct
// combination: shape.go), its creation time and text length, and its
// bits in the bitmaps: about 100 bytes (BenchmarkCatalogMemory).
//
// CreatedAt is kept per ordinal in a flat slice of unix microseconds: a
// date bound is evaluated by scanning the ordinals already allowed, about
// 10 ns each (BenchmarkAllowed: 0.1-0.2 ms over 10,000 allowed entries on
// a loaded 2-core machine), which keeps Put and Remove O(1) where a sorted
// date structure would need an insertion or a rebuild; a date window is
// cheap next to the search it filters.
//
// Ordinals are reused: Remove puts an entry's ordinal on a free list and the
// next Put of a new id takes it. An ordinal therefore names one id from the
// Put that returned it until that id's Remove; a consumer holding ordinals
// (a vector index) must drop its own data for the ordinal when the id is
// removed. Replacing an entry (Put of a live id) keeps its ordinal.
package catalog

import (
	"hash/maphash"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unique"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/contextd/contextd/persist"
)

// Entry is one indexed entry's access and filter fields.
type Entry struct {
	ID          string
	Owner       string
	Public      bool
	Readers     []string // "u:<principal>" and "g:<group>" (read or write grants both confer READ)
	ThreadID    string
	Source      string
	ContentType string
	Tags        []string
	CreatedAt   time.Time
	Length      uint32 // the text's length in index terms (length.go)
	// Metadata is the entry's metadata JSON (nil: none), kept in columns
	// by a catalog made with NewMeta (meta.go) and ignored by others.
	Metadata []byte
	// Summarized says the entry has a non-empty summary and Images is
	// the number of its image attachments: get_statistics' figures
	// (stats.go), kept in the shape.
	Summarized bool
	Images     int
	// Nodes is the number of its node summaries (the index tree's).
	Nodes int
}

// Query is the caller and the structural filters of one search.
type Query struct {
	Principal   string
	Groups      []string
	ThreadID    string     // "" = no filter
	Source      string     // "" = no filter
	ContentType string     // "" = no filter
	Tags        []string   // OR; nil = no filter
	Start, End  *time.Time // inclusive bounds on CreatedAt
	// IDs, when non-nil, restricts to these ids (metadata filters evaluated
	// by SQL); an empty non-nil slice allows nothing.
	IDs []string
	// OmitKnowledge leaves out the entries of knowledge threads
	// (persist.IsKnowledgeThread, persist.Filter.OmitKnowledge).
	OmitKnowledge bool
	// Before, when set, keeps only the entries after this place in the
	// newest-first order (created-at DESC, id DESC): keyset paging. Only
	// List reads it.
	Before *Position
}

// Position is a place in the newest-first order of entries.
type Position struct {
	CreatedAt time.Time
	ID        string
}

// slot is what the catalog remembers of an ordinal: its id and the
// number of its shape (shape.go), which names the bitmap keys it was
// added to, so Remove can clear it from each; shape 0 is a dead slot.
type slot struct {
	id    string // packed (ids.go) when packed is set
	shape uint32
	// unserved: the entry's metadata is not in the columns (meta.go).
	unserved bool
	packed   bool
}

func (s *slot) live() bool { return s.shape != 0 }

// str is a canonical (interned) string: the field values of the shapes
// repeat (one owner in every shape of its entries) and a scan of SQL
// returns each as a fresh allocation; interning keeps one copy per
// distinct value and 8 bytes per field, and a value no shape holds any
// more is collected (unique's handles are weak).
type str = unique.Handle[string]

// Catalog maps entry ids to ordinals and keeps the bitmaps. It is safe for
// concurrent use: Put and Remove take the write lock, the rest the read
// lock.
type Catalog struct {
	mu sync.RWMutex
	// ords indexes the live ordinals by id (the hash of an id is
	// maphash.String with seed).
	ords    refTable
	seed    maphash.Seed
	slots   []slot
	shapes  shapes
	scratch []byte // Put's encoding of a shape's lists
	free    []uint32
	created []int64         // per ordinal: CreatedAt in unix microseconds
	length  []uint32        // per ordinal: text length in index terms
	tokens  uint64          // the lengths of the live ordinals, summed
	all     *roaring.Bitmap // live ordinals
	public  *roaring.Bitmap
	owner   map[string]*roaring.Bitmap
	user    map[string]*roaring.Bitmap
	group   map[string]posting
	thread  map[string]*roaring.Bitmap
	source  map[string]*roaring.Bitmap
	ctype   map[string]*roaring.Bitmap
	tag     map[string]*roaring.Bitmap
	// know holds the live ordinals of knowledge threads
	// (persist.IsKnowledgeThread), which Query.OmitKnowledge leaves out.
	know *roaring.Bitmap
	// meta holds the metadata columns by key path (nil: the catalog
	// keeps no metadata); unserved counts the live entries whose
	// metadata is not in them.
	meta     map[string]*column
	unserved int
	// blockMax bounds the creation times of each block of blockOrds
	// ordinals (list.go).
	blockMax []int64
	// noCounts: decoded from a snapshot without the summary flags, image
	// and node counts (Counts).
	noCounts bool
	// touched sums a byte of each id Name read ahead, so that the
	// compiler keeps those reads.
	touched atomic.Uint32
}

// NewMeta returns an empty catalog that also keeps every entry's metadata
// in columns, to answer metadata conditions (List).
func NewMeta() *Catalog {
	c := New()
	c.meta = map[string]*column{}
	return c
}

// New returns an empty catalog.
func New() *Catalog {
	return &Catalog{
		seed:   maphash.MakeSeed(),
		shapes: newShapes(),
		all:    roaring.New(),
		public: roaring.New(),
		owner:  map[string]*roaring.Bitmap{},
		user:   map[string]*roaring.Bitmap{},
		group:  map[string]posting{},
		thread: map[string]*roaring.Bitmap{},
		source: map[string]*roaring.Bitmap{},
		ctype:  map[string]*roaring.Bitmap{},
		tag:    map[string]*roaring.Bitmap{},
		know:   roaring.New(),
	}
}

// Put inserts or replaces e and returns its ordinal. Replacing a live id
// keeps its ordinal.
func (c *Catalog) Put(e Entry) uint32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	q := keyOfID(e.ID)
	ord, ok := c.lookupKey(&q)
	switch {
	case ok:
		c.clear(ord)
	case len(c.free) > 0:
		ord = c.free[len(c.free)-1]
		c.free = c.free[:len(c.free)-1]
	default:
		ord = uint32(len(c.slots))
		c.slots = append(c.slots, slot{})
		c.created = append(c.created, 0)
		c.length = append(c.length, 0)
	}
	var k shapeKey
	k, c.scratch = keyOf(e, c.scratch)
	sid, packed := e.ID, q.packed
	if packed {
		sid = string(q.k[:])
	}
	c.slots[ord] = slot{id: sid, packed: packed, shape: c.shapes.acquire(k)}
	if !ok {
		c.ords.insert(c.keyHash(&q), ord, c.ordHash)
	}
	c.created[ord] = e.CreatedAt.UnixMicro()
	c.noteCreated(ord, c.created[ord])
	c.length[ord] = e.Length
	c.tokens += uint64(e.Length)
	c.index(ord)
	if c.meta != nil {
		// A knowledge upload's pending bytes are neither filterable
		// metadata nor worth their memory here.
		c.putMeta(ord, persist.PublicMetadata(e.ThreadID, e.Metadata))
	}
	return ord
}

// index adds the live ordinal ord to the bitmaps of its shape.
func (c *Catalog) index(ord uint32) {
	k := &c.shapes.recs[c.slots[ord].shape].key
	c.all.Add(ord)
	if k.public {
		c.public.Add(ord)
	}
	add(c.owner, k.owner.Value(), ord)
	for u := range strs(k.users) {
		add(c.user, u, ord)
	}
	for g := range strs(k.groups) {
		c.addGroup(g, ord)
	}
	add(c.thread, k.thread.Value(), ord)
	if persist.IsKnowledgeThread(k.thread.Value()) {
		c.know.Add(ord)
	}
	add(c.source, k.source.Value(), ord)
	add(c.ctype, k.ctype.Value(), ord)
	for t := range strs(k.tags) {
		add(c.tag, t, ord)
	}
}

// clear removes ord from every bitmap its slot is in and releases its
// shape (the slot itself is left for the caller to overwrite or mark
// dead).
func (c *Catalog) clear(ord uint32) {
	n := c.slots[ord].shape
	k := &c.shapes.recs[n].key
	c.tokens -= uint64(c.length[ord])
	c.length[ord] = 0
	c.all.Remove(ord)
	c.public.Remove(ord)
	del(c.owner, k.owner.Value(), ord)
	for u := range strs(k.users) {
		del(c.user, u, ord)
	}
	for g := range strs(k.groups) {
		if p := c.group[g].remove(ord); p.empty() {
			delete(c.group, g)
		} else {
			c.group[g] = p
		}
	}
	del(c.thread, k.thread.Value(), ord)
	c.know.Remove(ord)
	del(c.source, k.source.Value(), ord)
	del(c.ctype, k.ctype.Value(), ord)
	for t := range strs(k.tags) {
		del(c.tag, t, ord)
	}
	c.shapes.release(n)
	if c.meta != nil {
		c.clearMeta(ord)
	}
}

// Remove removes the entry id; false when it is not in the catalog. Its
// ordinal goes to the free list and may be returned by a later Put.
func (c *Catalog) Remove(id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	q := keyOfID(id)
	ord, ok := c.lookupKey(&q)
	if !ok {
		return false
	}
	c.clear(ord)
	c.ords.remove(c.keyHash(&q), func(o uint32) bool { return o == ord }, c.ordHash)
	c.slots[ord] = slot{}
	c.free = append(c.free, ord)
	return true
}

// Len is the number of live entries.
func (c *Catalog) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.ords.n
}

// Allowed returns the ordinals q's caller may read (public, owned, granted
// to the principal or to one of its groups) that pass every filter of q,
// as a fresh bitmap the caller owns.
func (c *Catalog) Allowed(q Query) *roaring.Bitmap {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.allowed(q)
}

// allowed is Allowed under the caller's lock.
func (c *Catalog) allowed(q Query) *roaring.Bitmap {
	if q.IDs != nil {
		// An id list (SQL's metadata matches) is usually far smaller than
		// the readable set: start from it and test each ordinal.
		return c.allowedIDs(q)
	}
	var out *roaring.Bitmap
	// The equality filters (thread, source, content type, tags), each a
	// bitmap; a value nobody has allows nothing.
	eq := make([]*roaring.Bitmap, 0, 4)
	for _, f := range []struct {
		m map[string]*roaring.Bitmap
		v string
	}{{c.thread, q.ThreadID}, {c.source, q.Source}, {c.ctype, q.ContentType}} {
		if f.v == "" {
			continue
		}
		b := f.m[f.v]
		if b == nil {
			return roaring.New()
		}
		eq = append(eq, b)
	}
	if q.Tags != nil {
		tb := make([]*roaring.Bitmap, 0, len(q.Tags))
		for _, t := range q.Tags {
			if b := c.tag[t]; b != nil {
				tb = append(tb, b)
			}
		}
		switch len(tb) {
		case 0:
			return roaring.New()
		case 1:
			eq = append(eq, tb[0])
		default:
			eq = append(eq, roaring.FastOr(tb...))
		}
	}
	if len(eq) == 0 {
		out = c.read(q)
	} else {
		// The smallest filter intersected with the others: the candidates.
		small := 0
		for i := range eq {
			if eq[i].GetCardinality() < eq[small].GetCardinality() {
				small = i
			}
		}
		out = eq[small].Clone()
		for i := range eq {
			if i != small {
				out.And(eq[i])
			}
		}
		switch {
		case out.IsEmpty():
			return out
		case out.GetCardinality() <= candidateScan && len(q.Groups) <= groupScan:
			// Few candidates (a thread): test each one's own grants
			// instead of materializing the readable set.
			keep := c.buf(int(out.GetCardinality()))
			it := out.ManyIterator()
			for n := it.NextMany(keep[len(keep):cap(keep)]); n > 0; n = it.NextMany(keep[len(keep):cap(keep)]) {
				cand := keep[len(keep) : len(keep)+n]
				for _, o := range cand {
					if c.readable(o, q) {
						keep = append(keep, o)
					}
				}
			}
			out = roaring.BitmapOf(keep...)
		default:
			out.And(c.read(q))
		}
	}
	if q.OmitKnowledge && !c.know.IsEmpty() {
		out.AndNot(c.know)
	}
	if q.Start != nil || q.End != nil {
		out = c.filterDates(out, q)
	}
	return out
}

// Thresholds of Allowed's plans, from BenchmarkAllowed: below
// candidateScan candidates (and with at most groupScan groups to compare
// each candidate's grants with), testing candidates beats building the
// readable set; reader bitmaps of at most smallPart ordinals are merged by
// collecting their values, not by a roaring union (a union of thousands of
// one-entry group bitmaps into one bitmap copies its array containers
// each time).
const (
	candidateScan = 4096
	groupScan     = 64
	smallPart     = 32
	denseFrom     = 512
)

// buf is a scratch slice of ordinals (capacity at least n).
func (c *Catalog) buf(n int) []uint32 { return make([]uint32, 0, max(n, 64)) }

// read is READ(q.Principal, q.Groups): public ∪ owned ∪ granted to the
// principal ∪ granted to one of its groups, as a fresh bitmap.
func (c *Catalog) read(q Query) *roaring.Bitmap {
	big := make([]*roaring.Bitmap, 0, 4)
	var small []uint32
	part := func(b *roaring.Bitmap) {
		if b == nil {
			return
		}
		if b.GetCardinality() > smallPart {
			big = append(big, b)
			return
		}
		b.Iterate(func(x uint32) bool {
			small = append(small, x)
			return true
		})
	}
	part(c.public)
	part(c.owner[q.Principal])
	part(c.user[q.Principal])
	for _, g := range q.Groups {
		p, ok := c.group[g]
		switch {
		case !ok:
		case p.bm != nil:
			part(p.bm)
		default:
			small = append(small, p.in[:p.n]...)
		}
	}
	switch {
	case len(small) > denseFrom:
		// Thousands of values (thousands of groups): set bits in a dense
		// bitset over every ordinal, then convert; sorting them cost
		// more than the rest of the union.
		dense := make([]uint64, (len(c.slots)+63)/64)
		for _, o := range small {
			dense[o>>6] |= 1 << (o & 63)
		}
		big = append(big, roaring.FromDense(dense, false))
	case len(small) > 0:
		// Sorted values build their bitmap container by container.
		slices.Sort(small)
		big = append(big, roaring.BitmapOf(small...))
	}
	switch len(big) {
	case 0:
		return roaring.New()
	case 1:
		if len(small) > 0 {
			return big[0] // built here
		}
		return big[0].Clone()
	}
	return roaring.FastOr(big...)
}

// readable reports whether the live slot ord is readable by q's caller.
func (c *Catalog) readable(ord uint32, q Query) bool {
	s := &c.shapes.recs[c.slots[ord].shape].key
	if s.public || s.owner.Value() == q.Principal {
		return true
	}
	for u := range strs(s.users) {
		if u == q.Principal {
			return true
		}
	}
	for g := range strs(s.groups) {
		for _, qg := range q.Groups {
			if g == qg {
				return true
			}
		}
	}
	return false
}

// matches reports whether the live slot ord passes q's structural filters
// except dates.
func (c *Catalog) matches(ord uint32, q Query) bool {
	s := &c.shapes.recs[c.slots[ord].shape].key
	if q.ThreadID != "" && s.thread.Value() != q.ThreadID {
		return false
	}
	if q.OmitKnowledge && persist.IsKnowledgeThread(s.thread.Value()) {
		return false
	}
	if q.Source != "" && s.source.Value() != q.Source {
		return false
	}
	if q.ContentType != "" && s.ctype.Value() != q.ContentType {
		return false
	}
	if q.Tags != nil {
		hit := false
		for t := range strs(s.tags) {
			for _, qt := range q.Tags {
				if t == qt {
					hit = true
					break
				}
			}
			if hit {
				break
			}
		}
		if !hit {
			return false
		}
	}
	return true
}

// allowedIDs evaluates q over the ordinals of q.IDs.
func (c *Catalog) allowedIDs(q Query) *roaring.Bitmap {
	out := roaring.New()
	lo, hi := dateBounds(q)
	for _, id := range q.IDs {
		o, ok := c.lookup(id)
		if !ok {
			continue
		}
		if v := c.created[o]; v < lo || v > hi {
			continue
		}
		if c.matches(o, q) && c.readable(o, q) {
			out.Add(o)
		}
	}
	return out
}
