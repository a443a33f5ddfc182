package index

// A postings cursor that leaps to a far document.
//
// zap's Advance over a list without deletions (zapx v17,
// nextDocNumAtOrAfterClean) moves the list's bitmap iterator one posting
// at a time up to the target, dividing each document number by the
// chunk width on the way: it has to count the postings of the target's
// chunk before it, which the frequency and location decoders then skip,
// and it counts them by walking. A cursor asked about documents far
// apart therefore reads its whole list. The phrase check (phraseCheck)
// is such a cursor: it asks a phrase's words about the few documents
// that would enter the heap, and for the bench's 1M questions holding a
// phrase ("can't", "go/build's") the walk spent 0.39 of 2.5 s of CPU
// (twenty questions, ten calls each) in those walks, the bitmap steps
// and the divisions 0.34 of it (2026-12-06).
//
// The decoders are positioned chunk by chunk (loadChunk), so a cursor
// whose next posting lies before the target's chunk may skip to the
// chunk's first document in the bitmap (roaring's AdvanceIfNeeded, a
// search) and let Advance count only within the chunk: the posting
// Advance then returns first is its chunk's first, the one the decoders
// load the chunk at, as when Advance walks there itself. The chunk width
// is zap's rule for the segment's chunk mode (getChunkSize, unexported);
// a list with deletions (whose iterator walks a second bitmap), a list
// of one posting, another segment format or an unknown chunk mode is
// advanced by zap alone. TestLeapMatchesAdvance holds the leaps to zap's
// own Advance, frequencies, norms and locations included (a chunk width
// or a leap target off by part of a chunk fails it).
//
// Alternated call by call with zap's walk over the bench's hundred
// hybrid questions at 1M (the fastest of three calls each way, two
// runs): the calls' times summed 682 and 607 ms against 687 and 623, the
// 90th percentile 9.28 and 8.49 ms against 9.71 and 9.23; the questions
// holding a phrase gained 1-5 ms each ("go/build's" 14.6 and 11.7 ms
// against 16.4 and 16.8), the median moved within the machine's drift
// (6.27 and 5.88 against 6.45 and 5.82), since those questions sit above
// it. A zapx upgrade that changes the chunk rule fails the test.

import (
	"github.com/RoaringBitmap/roaring/v2"
	segment "github.com/blevesearch/scorch_segment_api/v2"
	zapx "github.com/blevesearch/zapx/v17"
)

// leapSeen, when set (tests), hears of each leap.
var leapSeen func()

// leaper advances one postings iterator, leaping to the target's chunk
// where it can (chunk 0: never).
type leaper struct {
	z     *zapx.PostingsIterator
	chunk uint64
}

// newLeaper returns the leaper of it, an iterator of pl in seg opened with
// the deletions del.
func newLeaper(seg segment.Segment, pl segment.PostingsList, it segment.PostingsIterator, del *roaring.Bitmap) leaper {
	z, ok := it.(*zapx.PostingsIterator)
	if !ok || del != nil || z.Actual == nil || pl == nil {
		return leaper{}
	}
	var mode uint32
	switch s := seg.(type) {
	case *zapx.Segment: // a file, written in the mode its footer records
		mode = s.ChunkMode()
	case *zapx.SegmentBase: // built in memory: zapx's New uses the default
		mode = zapx.DefaultChunkMode
	default:
		return leaper{}
	}
	return leaper{z: z, chunk: zapChunk(mode, pl.Count(), seg.Count())}
}

// advance returns the iterator's first posting at or after d (nil past
// its last), as it.Advance(d) does.
func (l leaper) advance(it segment.PostingsIterator, d uint64) (segment.Posting, error) {
	if l.chunk > 0 {
		start := d / l.chunk * l.chunk
		if a := l.z.Actual; a.HasNext() && uint64(a.PeekNext()) < start {
			a.AdvanceIfNeeded(uint32(start))
			if leapSeen != nil {
				leapSeen()
			}
		}
	}
	return it.Advance(d)
}

// zapChunk is the chunk width, in document numbers, of a list of card
// postings in a zap segment of docs documents written in chunk mode
// mode (zapx's getChunkSize); 0 for a mode it does not know.
func zapChunk(mode uint32, card, docs uint64) uint64 {
	switch {
	case mode == 0:
		return 0
	case mode <= 1024:
		return uint64(mode)
	case mode == 1025:
		if card <= 1024 {
			return docs
		}
		return 1024
	case mode == 1026:
		return docs / (card/1024 + 1)
	}
	return 0
}
