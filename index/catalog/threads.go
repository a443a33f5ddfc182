package catalog

import (
	"cmp"
	"slices"
)

// ThreadStat is one thread's figures over the entries a query allows, as
// list_threads reports them.
type ThreadStat struct {
	Thread     string
	Count      int
	Sources    int   // distinct sources
	Multimodal int   // entries of content type "multimodal"
	First      int64 // the earliest creation time, unix microseconds
	Last       int64 // the latest creation time, unix microseconds
	LastID     string
}

// Threads returns the figures of every thread holding an entry q allows
// (q.IDs must be nil), the latest activity first (Last DESC, then LastID
// DESC, as SQL orders list_threads); LastID is the greatest id of the
// thread's allowed entries, as SQL's max(id).
//
// The work is a pass over the allowed ordinals, tallied per shape (a
// shape names its thread, source and content type) and then merged per
// thread: proportional to what the caller may read, where SQL's GROUP BY
// visited every row of every principal (or, through the owner, public and
// grant indexes, cost 1.6x more per row read).
func (c *Catalog) Threads(q Query) []ThreadStat {
	c.mu.RLock()
	defer c.mu.RUnlock()
	b := c.allowed(q)
	type tally struct {
		n           int
		first, last int64
		maxOrd      uint32
		shape       uint32
	}
	at := map[uint32]int{} // shape number -> index in tallies
	var tallies []tally
	buf := make([]uint32, 256)
	it := b.ManyIterator()
	for n := it.NextMany(buf); n > 0; n = it.NextMany(buf) {
		for _, o := range buf[:n] {
			s := c.slots[o].shape
			i, ok := at[s]
			if !ok {
				i = len(tallies)
				at[s] = i
				tallies = append(tallies, tally{first: c.created[o], last: c.created[o], maxOrd: o, shape: s})
			}
			t := &tallies[i]
			t.n++
			t.first = min(t.first, c.created[o])
			t.last = max(t.last, c.created[o])
			if compareIDs(&c.slots[o], &c.slots[t.maxOrd]) > 0 {
				t.maxOrd = o
			}
		}
	}
	type merged struct {
		ThreadStat
		sources []string
	}
	byThread := map[string]*merged{}
	for _, t := range tallies {
		k := &c.shapes.recs[t.shape].key
		th := k.thread.Value()
		m := byThread[th]
		if m == nil {
			m = &merged{ThreadStat: ThreadStat{Thread: th, First: t.first, Last: t.last, LastID: c.slots[t.maxOrd].text()}}
			byThread[th] = m
		}
		m.Count += t.n
		if k.ctype.Value() == "multimodal" {
			m.Multimodal += t.n
		}
		m.First, m.Last = min(m.First, t.first), max(m.Last, t.last)
		m.LastID = max(m.LastID, c.slots[t.maxOrd].text())
		if src := k.source.Value(); !slices.Contains(m.sources, src) {
			m.sources = append(m.sources, src)
		}
	}
	out := make([]ThreadStat, 0, len(byThread))
	for _, m := range byThread {
		m.Sources = len(m.sources)
		out = append(out, m.ThreadStat)
	}
	slices.SortFunc(out, func(a, b ThreadStat) int {
		return cmp.Or(cmp.Compare(b.Last, a.Last), cmp.Compare(b.LastID, a.LastID))
	})
	return out
}
