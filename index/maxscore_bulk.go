package index

// A window read term by term (Lucene's bulk scorer, inside block-max
// MaxScore).
//
// The walk draws a window's candidates document by document: the
// smallest document the essential cursors stand on, then each cursor on
// it weighed and moved on. At 1M entries a hybrid question's walk draws
// some 24,000 candidates, and that loop (the smallest cursor, the cursors
// on the document, the length, the weight, the next posting) was 1.6 of
// 3.7 s of the walk's CPU over 1,000 calls. When every essential term of
// a window is a term (no phrase), windowBulk reads each one's postings
// there in one pass instead, from its blocks (or its cursor, for a list
// without them), adds the weights into the window's documents, then
// finishes the documents in order as the walk finishes a candidate
// (msWalk.candidate): the same candidates, the same skips and the same
// scores, bit for bit, since each unit's weight is kept apart and summed
// in unit order. Alternated call by call with the document-at-a-time
// loop over the bench's hundred questions (the fastest of three calls of
// each, four runs), the calls' times summed 2.4-4.1 % lower and the
// full-text leg's 1.6-4.2 % (2026-12-05). Reading the window's lengths ahead
// in one sweep did not help (sums equal).

import "math/bits"

// maxScoreWindow, when set (tests), hears of each window walked, and
// whether term by term.
var maxScoreWindow func(bulk bool)

// noBulk, when set (tests), walks every window document by document.
var noBulk bool

// bulk reports whether a window whose essential terms are ts (positions
// in w.ts) can be read term by term: each is a term with an idf, not a
// phrase, and the query has at most 64 units (a document's units weighed
// fit one word).
func (w *msWalk) bulk(ts []int) bool {
	if len(w.contrib) > 64 || noBulk {
		return false
	}
	for _, i := range ts {
		if t := &w.ts[i]; t.phrase || t.idf <= 0 {
			return false
		}
	}
	return true
}

// bulkScratch is windowBulk's state for the documents of one window,
// reused from window to window.
type bulkScratch struct {
	known   []float64 // the essential terms' weights, summed
	dl      []float64 // the document's length (0: not read yet)
	has     []uint64  // the units weighed
	contrib []float64 // unit u's weight in document i at i*units+u
	touched []uint64  // the documents an essential term holds
}

// windowBulk walks the window [ws, we) of a segment (global numbers from
// base, ordinal array ords) whose essential terms are order[ess:], term by
// term.
func (w *msWalk) windowBulk(ws, we, base uint64, ords []uint32, order []int, ess int) error {
	n := int(we - ws)
	units := len(w.contrib)
	s := &w.bs
	if len(s.known) < n || len(s.contrib) < n*units {
		size := max(int(blockDocs), n)
		*s = bulkScratch{known: make([]float64, size), dl: make([]float64, size), has: make([]uint64, size),
			contrib: make([]float64, size*units), touched: make([]uint64, (size+63)/64)}
	}
	known, dls, has, touched := s.known[:n], s.dl[:n], s.has[:n], s.touched[:(n+63)/64]
	clear(touched)
	for k := ess; k < len(order); k++ {
		t := &w.ts[order[k]]
		// add weighs t in local document d of frequency freq (unknown:
		// the blocks do not hold it) and length dl (0: not known here).
		add := func(d, freq uint64, dl float64, unknown bool) error {
			if t.del != nil && t.del.Contains(uint32(d)) {
				return nil
			}
			i := d - ws
			if touched[i>>6]&(1<<(i&63)) == 0 {
				touched[i>>6] |= 1 << (i & 63)
				known[i], has[i], dls[i] = 0, 0, 0
			} else if dl == 0 {
				dl = dls[i]
			}
			if dl == 0 && !unknown {
				dl = t.blk.length(d)
			}
			if dl == 0 || unknown {
				// From the postings: they move forward only, as the
				// window's documents do for each term.
				if err := t.postingOf(d); err != nil {
					return err
				}
				freq, dl = t.freq, t.dl
			}
			dls[i] = dl
			c := bm25Weight(t.idf, freq, dl, w.avgdl)
			known[i] += c
			has[i] |= 1 << t.unit
			s.contrib[int(i)*units+t.unit] = c
			return nil
		}
		switch b := t.blk; {
		case !t.fromBlocks:
			// A short list, or a long one without blocks: its cursor,
			// which then stands past the window as the walk leaves it.
			if err := t.position(ws); err != nil {
				return err
			}
			for t.cur < we {
				if err := add(t.cur, t.freq, t.dl, false); err != nil {
					return err
				}
				if err := t.next(); err != nil {
					return err
				}
			}
		case b.tf4 != nil:
			for d := ws; d < we; {
				v := b.tf4[d>>1]
				if v == 0 {
					d = (d | 1) + 1 // both documents of the byte lack the term
					continue
				}
				if f := v >> (4 * (d & 1)) & 15; f != 0 {
					if err := add(d, uint64(f), 0, f == tfUnknown); err != nil {
						return err
					}
				}
				d++
			}
		default:
			// The window is the block ws/blockDocs (walkRange's windows
			// start at multiples of blockDocs). The term's cursor may
			// stand inside it, moved to an earlier candidate's first
			// posting at or after it, but then holds no posting before
			// it there: the block's postings are the window's.
			kb := ws / blockDocs
			for p := b.at[kb]; p < b.at[kb+1]; p++ {
				off, freq, known := b.sparsePosting(p)
				if d := ws + off; d < we {
					if err := add(d, freq, 0, !known); err != nil {
						return err
					}
				}
			}
		}
	}
	for j, set := range touched {
		for ; set != 0; set &= set - 1 {
			i := j<<6 | bits.TrailingZeros64(set)
			if ess > 0 && (known[i]+w.ub[ess-1])*(1+boundMargin) < w.theta {
				// candidate's first test, before the weights are copied
				// (and its count of steps, which checks the deadline).
				if w.steps++; w.steps&1023 == 0 {
					if err := w.ctx.Err(); err != nil {
						return err
					}
				}
				w.total++
				w.skipped++
				continue
			}
			m := has[i]
			w.has[0] = m
			// Drawn by terms that only score alone, d is checked as a
			// phrase's candidate (arrange).
			matched := m&w.genUnits != 0
			for ; m != 0; m &= m - 1 {
				u := bits.TrailingZeros64(m)
				w.contrib[u] = s.contrib[i*units+u]
			}
			if _, err := w.candidate(ws+uint64(i), base, ords, order, ess, known[i], dls[i], matched, !matched); err != nil {
				return err
			}
		}
	}
	return nil
}
