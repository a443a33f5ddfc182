package index

// Block upper bounds of the MaxScore selection (maxscore_walk.go).
//
// The term bound idf·(k1+1) is what a term adds to a document as its
// frequency grows without limit; a common word occurs once or twice in an
// entry of ordinary length and adds about half that. So a long postings
// list is cut into blocks of blockDocs document numbers and each block
// keeps what bounds its documents' term weight for any collection
// statistics:
//
//	TF(tf, dl) = (k1+1) / (1 + c/tf + e·dl/tf),  c = k1·(1−b),  e = k1·b/avgdl
//
// falls as 1/tf and dl/tf grow, so with the block's largest tf and its
// smallest dl/tf it is at most (k1+1) / (1 + c/maxTF + e·min(dl/tf)).
// Both are read from the segment's postings once (deleted documents
// included: a bound over more documents still bounds) and kept per
// segment, which never changes; idf and avgdl, the caller's statistics,
// enter only when a search multiplies them in. Nothing of a query, of a
// caller or of the deletions is cached.

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/blevesearch/bleve/v2/index/scorch"
	segment "github.com/blevesearch/scorch_segment_api/v2"
	"github.com/contextd/contextd/index/bm25"
)

// blockDocs is the width of a block and of the walk's windows, in
// document numbers; minBlockDF the shortest postings list (in a segment)
// given blocks: a shorter one is positioned by seeking at each window,
// which costs little. Tests set both small.
var (
	blockDocs  uint64 = 512
	minBlockDF uint64 = 2048
)

// maxBlockBytes caps the cache: past it the cache starts again empty. A
// term's blocks take 8 bytes per blockDocs documents, 16 KB over a
// million entries, and its frequencies (or its postings: 2 bytes each,
// under a sixth of the documents) at most half a byte a document, 500
// KB: the cap holds some 250 of the commonest words there.
const maxBlockBytes = 128 << 20

// termBlocks are one term's block bounds in one segment: tf[k] is the
// largest frequency in block k (0: no posting) and y[k] the smallest
// length over frequency, rounded down.
//
// They also tell the walk how often a candidate holds the term without
// moving the term's cursor: zap's Advance reads every posting on the way
// to its target, so looking a common word up at each candidate of a
// rarer one read the whole common list (for "Use it here when
// determining if" at 1M entries, 300k postings of "use" for 9k lookups:
// 4.9 of the leg's 7.2 ms). A dense list (a document in denseEvery or
// more) keeps each document's frequency in four bits, tf4 (0: absent,
// 15: 15 or more, read from the cursor); a sparser one its documents
// block by block, each as its offset in the block and its frequency in 16
// bits. Deleted documents are included: a candidate is never deleted.
type termBlocks struct {
	tf, y []float32
	tf4   []byte
	// A sparse list's postings: those of block k are post[at[k]:at[k+1]],
	// each its document's offset in the block shifted left by shift,
	// ORed with its frequency (tfMask: that or more), so ascending by
	// document. Two bytes a posting where a roaring bitmap took about as
	// much and answered only whether a document holds the term: the
	// frequency then came from zap's postings, and with the bitmap's
	// lookups that was 40 % of the 1M hybrid walk's CPU (2.65 of 6.6 s over
	// 1,000 calls, 2026-12-05).
	at    []uint32
	post  []uint16
	shift uint8
	// lens are the segment's documents' lengths (segBlocks.lens): with
	// the frequencies they let the walk draw the list's candidates
	// without its postings (msTerm.blocksFrom).
	lens []uint32
}

// length is local document d's length as the segment's lengths record
// it, 0 when no list's build recorded it (a length is at least 1; one of
// lenMax or more is never recorded).
func (b *termBlocks) length(d uint64) float64 {
	return float64(atomic.LoadUint32(&b.lens[d/lensPer]) >> (lenBits * (d % lensPer)) & lenMax)
}

// The segment's lengths array holds lensPer lengths of lenBits to a word
// (segBlocks.lens); a document of lenMax terms or more keeps 0 there and
// is weighed with the length its postings give, as one no long list
// holds is. Two bytes a document rather than four: the walk reads a
// document's length once it first weighs it, at a place in the array
// nothing predicts, and that load was 9 % of a 1M hybrid call's CPU
// (0.41 of 4.34 s over 500 calls, kept database, 2026-12-06); with half
// the array it took 0.05-0.08 s of 3.2 against 0.18-0.23 of 3.1-3.3,
// processes alternated.
const (
	lenBits        = 16
	lensPer        = 32 / lenBits
	lenMax  uint32 = 1<<lenBits - 1
)

// tfMask is a sparse posting's frequency bits (all set: the frequency is
// not held).
func (b *termBlocks) tfMask() uint16 { return 1<<b.shift - 1 }

// sparsePosting is the document offset and the frequency of a sparse
// list's posting i.
func (b *termBlocks) sparsePosting(i uint32) (off uint64, freq uint64, known bool) {
	v := b.post[i]
	f := v & b.tfMask()
	return uint64(v >> b.shift), uint64(f), f != b.tfMask()
}

// denseEvery: a list holding one document in denseEvery or more keeps
// tf4, half a byte a document; a sparser one two bytes a posting, less
// below one document in four (from one in six to one in four tf4 stays, a
// lookup in one step for at most a sixth of a byte a document more). At
// 1M entries the 80 lists of the largest segment holding one document in
// sixteen or more (the threshold when sparse lists kept only their
// documents) took 36.6 MB as tf4 and take 23.3 MB so: 27 dense lists and
// 53 sparse ones.
var denseEvery uint64 = 6

// tfUnknown is tf4's mark for a frequency it does not hold.
const tfUnknown = 15

// freqAt returns the term's frequency in local document d when the blocks
// know it: known false means the cursor must be moved there; freq 0 with
// known true that d lacks the term.
func (b *termBlocks) freqAt(d uint64) (freq uint64, known bool) {
	if b.tf4 != nil {
		v := b.tf4[d>>1] >> (4 * (d & 1)) & 15
		return uint64(v), v != tfUnknown
	}
	k := d / blockDocs
	lo, hi := int(b.at[k]), int(b.at[k+1])
	o := d - k*blockDocs
	i, _ := slices.BinarySearch(b.post[lo:hi], uint16(o)<<b.shift)
	if lo+i == hi {
		return 0, true
	}
	off, freq, known := b.sparsePosting(uint32(lo + i))
	if off != o {
		return 0, true
	}
	return freq, known
}

// bound is the most the term adds to a document of block k: idf (times
// the query's count) times the block's TF bound, widened by boundMargin.
// c and e are k1·(1−b) and k1·b/avgdl.
func (b *termBlocks) bound(k uint64, idf, c, e float64) float64 {
	tf := b.tf[k]
	if tf == 0 || idf <= 0 {
		return 0
	}
	return idf * bm25.MaxTF / (1 + c/float64(tf) + e*float64(b.y[k])) * (1 + boundMargin)
}

// docLen is a document's length from its postings norm, as bm25Term
// reads it.
func docLen(norm float64) float64 {
	if norm > 0 {
		return math.Round(1 / (norm * norm))
	}
	return 1
}

// buildBlocks reads term's postings in a segment of n documents; nil when
// the list is shorter than minBlockDF. The list records its documents'
// lengths in the segment's array lens returns (a document's norm is the
// same in every list), when given, and keeps it.
func buildBlocks(dict segment.TermDictionary, term string, n uint64, lens func() []uint32) (*termBlocks, error) {
	pl, err := dict.PostingsList([]byte(term), nil, nil)
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	if pl == nil || pl.Count() < minBlockDF {
		return nil, nil
	}
	shift := 16 - bits.Len64(blockDocs-1) // the frequency's bits
	if shift < 2 {
		return nil, fmt.Errorf("index: blocks of %d documents leave a sparse posting no room for its frequency", blockDocs)
	}
	nb := (n + blockDocs - 1) / blockDocs
	b := &termBlocks{tf: make([]float32, nb), y: make([]float32, nb)}
	for k := range b.y {
		b.y[k] = float32(math.Inf(1))
	}
	if pl.Count()*denseEvery >= n {
		b.tf4 = make([]byte, (n+1)/2)
	} else {
		b.at = make([]uint32, nb+1)
		b.post = make([]uint16, 0, pl.Count())
		b.shift = uint8(shift)
	}
	if lens != nil {
		b.lens = lens()
	}
	it := pl.Iterator(true, true, false, nil)
	for {
		p, err := it.Next()
		if err != nil {
			return nil, fmt.Errorf("index: %w", err)
		}
		if p == nil {
			if b.at != nil {
				for k := range nb {
					b.at[k+1] = max(b.at[k+1], b.at[k]) // blocks without a posting
				}
			}
			return b, nil
		}
		d := p.Number()
		k := d / blockDocs
		tf := float64(p.Frequency())
		if k >= nb || tf <= 0 {
			return nil, fmt.Errorf("index: posting %d of %q (frequency %v) outside a segment of %d documents", d, term, tf, n)
		}
		if b.tf4 != nil {
			b.tf4[d>>1] |= byte(min(p.Frequency(), tfUnknown)) << (4 * (d & 1))
		} else {
			b.post = append(b.post, uint16(d-k*blockDocs)<<shift|uint16(min(p.Frequency(), uint64(b.tfMask()))))
			b.at[k+1] = uint32(len(b.post))
		}
		dl := docLen(p.Norm())
		if b.lens != nil && dl < float64(lenMax) {
			// Atomic: builds of other lists write the same value, and
			// the word's other lengths.
			atomic.OrUint32(&b.lens[d/lensPer], uint32(dl)<<(lenBits*(d%lensPer)))
		}
		f := float32(tf)
		if float64(f) < tf {
			f = math.Nextafter32(f, float32(math.Inf(1)))
		}
		b.tf[k] = max(b.tf[k], f)
		y := dl / tf
		yf := float32(y)
		if float64(yf) > y {
			yf = math.Nextafter32(yf, 0)
		}
		b.y[k] = min(b.y[k], yf)
	}
}

// blockCache holds the block bounds of the live segments, keyed by the
// segment itself (its number restarts when the index is reset), within
// maxBlockBytes: past it a term gets no blocks (the walk then reads its
// cursor, as before them) until segments merged away free their share.
type blockCache struct {
	mu    sync.Mutex
	segs  map[segment.Segment]*segBlocks
	bytes int
}

// segBlocks are one segment's term blocks, each built once.
type segBlocks struct {
	warm  sync.Once
	mu    sync.Mutex
	terms map[string]*blockEntry
	bytes int // under blockCache.mu
	// lens hold document d's length, docLen of its postings norm (a
	// whole number; 0 not yet read or lenMax and over), in the lenBits
	// of word d/lensPer from bit lenBits·(d%lensPer), filled by the long
	// lists' builds: 2 bytes a document, 1.8 MB for the 916k documents
	// of the largest segment at 1M entries. The length rather than the
	// norm: the walk weighs a term without docLen's division and rounding
	// at each posting.
	lensOnce sync.Once
	lens     []uint32
}

type blockEntry struct {
	once sync.Once
	done atomic.Bool // b and err are set
	// later: a build outside the searches is queued or running.
	later atomic.Bool
	b     *termBlocks
	err   error
	uses  int
}

// buildOnUse is the use of a list (by a walk, in a segment) that builds
// its blocks when the segment's warm-up did not: building reads the whole
// list, which a walk may never need to, so a word asked for once keeps
// the walk's cost without blocks; one asked for again is likely asked for
// often. The search that asks the second time does not build them itself
// (reading a long list made it the slow one of a hundred: the 100k bench's
// fts p99 4.2-23.8 ms against 3.8-3.9 without blocks, 2026-12-05): it
// hands the build to Index.buildLater and goes on without.
const buildOnUse = 2

// warmMinDocs: a segment of at least this many documents gets the blocks
// of its dense lists, and of its longest sparse ones within
// warmBytesPerDoc, when a walk first meets it. Built one query at a time,
// the blocks of a common word cost the first query using it what the walk
// without them cost (one pass over the list), so the bench's hundred
// questions, each asked once, ran as slowly as before. At 1M entries the
// largest segment (916k documents, 42k terms) holds 80 lists of one
// document in sixteen or more, 13M of its 33M postings: building them
// took some 0.3 s once, beside the 1 s of its ordinal array
// (prefilter.go), and 38 MB.
var warmMinDocs uint64 = 16384

// warmBytesPerDoc bounds what a segment's warm-up builds, the segment's
// lengths (2 bytes a document; 4 when the figures below were measured, so
// the lists now have 2 bytes a document more) included: its dense lists,
// then its sparse long lists from the longest down while they fit. A
// list costs a query about what it holds, and a query's words are drawn
// about as often as they occur, so the longest lists carry most of the
// cost left to lists without blocks: at 1M entries the 27 dense lists
// (12.4 MB) and the 180 longest of the 1,522 sparse ones (23.7 MB) fit
// the 40 MB the 916k documents allow, and those 180 hold 84 % of the
// sparse lists' summed squared lengths. 44 bytes a document is what the
// dense lists of one document in sixteen took with the lengths (about 40
// MB there).
var warmBytesPerDoc uint64 = 44

// blocks returns term's block bounds in ss (nil: a short list, or the
// cache is full), building them on first use. live are the reader's
// segments: entries of segments gone from it are dropped when the cache
// holds many.
func (c *blockCache) blocks(ss *scorch.SegmentSnapshot, live []*scorch.SegmentSnapshot, dict segment.TermDictionary, term string, later func(seg segment.Segment, sb *segBlocks, term string) bool) (*termBlocks, error) {
	sb, err := c.warmed(ss, live, dict)
	if err != nil {
		return nil, err
	}
	b, e, err := c.entry(sb, dict, term, ss.Segment().Count(), buildOnUse, later != nil)
	if e != nil && e.later.CompareAndSwap(false, true) && !later(ss.Segment(), sb, term) {
		e.later.Store(false) // not taken: a later use asks again
	}
	return b, err
}

// warmed returns the blocks of ss, with its dense lists' built when the
// segment is large (once per segment; Index.WarmSearch does it ahead).
func (c *blockCache) warmed(ss *scorch.SegmentSnapshot, live []*scorch.SegmentSnapshot, dict segment.TermDictionary) (*segBlocks, error) {
	seg := ss.Segment()
	c.mu.Lock()
	if c.segs == nil {
		c.segs = map[segment.Segment]*segBlocks{}
	}
	sb := c.segs[seg]
	if sb == nil {
		if len(c.segs) >= 2*len(live)+8 {
			c.pruneLocked(live)
		}
		sb = &segBlocks{terms: map[string]*blockEntry{}}
		c.segs[seg] = sb
	}
	c.mu.Unlock()
	var err error
	if n := seg.Count(); n >= warmMinDocs {
		sb.warm.Do(func() { err = c.warm(sb, dict, n) })
	}
	return sb, err
}

// prune drops the blocks of segments not in live (the idle release, as
// ordCache.prune).
func (c *blockCache) prune(live []*scorch.SegmentSnapshot) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pruneLocked(live)
}

func (c *blockCache) pruneLocked(live []*scorch.SegmentSnapshot) {
	keep := make(map[segment.Segment]bool, len(live))
	for _, s := range live {
		keep[s.Segment()] = true
	}
	for k, v := range c.segs {
		if !keep[k] {
			delete(c.segs, k)
			c.bytes -= v.bytes
		}
	}
}

// entry returns term's blocks in the segment of sb, building them once,
// at the after-th use, while the cache has room; with defer, it returns
// the entry to build instead (nil when there is nothing to build).
func (c *blockCache) entry(sb *segBlocks, dict segment.TermDictionary, term string, n uint64, after int, deferBuild bool) (*termBlocks, *blockEntry, error) {
	sb.mu.Lock()
	e := sb.terms[term]
	if e == nil {
		c.mu.Lock()
		full := c.bytes >= maxBlockBytes
		c.mu.Unlock()
		if full {
			sb.mu.Unlock()
			return nil, nil, nil
		}
		e = &blockEntry{}
		sb.terms[term] = e
	}
	e.uses++
	wait := e.uses < after
	sb.mu.Unlock()
	if e.done.Load() {
		return e.b, nil, e.err
	}
	if wait {
		return nil, nil, nil
	}
	if deferBuild {
		return nil, e, nil
	}
	e.once.Do(func() {
		defer e.done.Store(true)
		e.b, e.err = buildBlocks(dict, term, n, func() []uint32 {
			sb.lensOnce.Do(func() {
				m := (n + lensPer - 1) / lensPer
				sb.lens = make([]uint32, m)
				c.mu.Lock()
				c.bytes += 4 * int(m)
				sb.bytes += 4 * int(m)
				c.mu.Unlock()
			})
			return sb.lens
		})
		if e.b != nil {
			size := 8*len(e.b.tf) + len(e.b.tf4) + 4*len(e.b.at) + 2*len(e.b.post)
			c.mu.Lock() // both sums are c.mu's: pruning reads sb.bytes
			c.bytes += size
			sb.bytes += size
			c.mu.Unlock()
		}
	})
	return e.b, nil, e.err
}

// warm builds the blocks of the segment's dense lists (denseEvery), then
// of its longest sparse ones within warmBytesPerDoc.
func (c *blockCache) warm(sb *segBlocks, dict segment.TermDictionary, n uint64) error {
	type long struct {
		term  string
		count uint64
	}
	var sparse []long
	it := dict.AutomatonIterator(nil, nil, nil)
	for {
		de, err := it.Next()
		if err != nil {
			return fmt.Errorf("index: %w", err)
		}
		if de == nil {
			break
		}
		if de.Count < minBlockDF {
			continue
		}
		if de.Count*denseEvery < n {
			sparse = append(sparse, long{de.Term, de.Count})
			continue
		}
		if _, _, err := c.entry(sb, dict, de.Term, n, 1, false); err != nil {
			return err
		}
	}
	slices.SortStableFunc(sparse, func(a, b long) int { return cmp.Compare(b.count, a.count) })
	nb := (n + blockDocs - 1) / blockDocs
	for _, l := range sparse {
		c.mu.Lock()
		spent := uint64(sb.bytes)
		c.mu.Unlock()
		if spent+2*l.count+12*nb > warmBytesPerDoc*n {
			return nil
		}
		if _, _, err := c.entry(sb, dict, l.term, n, 1, false); err != nil {
			return err
		}
	}
	return nil
}
