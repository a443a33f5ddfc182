package catalog

import (
	"cmp"
	"slices"
)

// Stats are get_statistics' counts over the entries a query allows.
type Stats struct {
	Total         int
	BySource      map[string]int
	ByContentType map[string]int
	Summarized    int // entries with a non-empty summary
	Images        int // their image attachments
	Nodes         int // their node summaries
	Threads       int // distinct threads
	TopThreads    []NameCount
	Tags          int // distinct tags
	TopTags       []NameCount
}

// NameCount is a thread or a tag and its number of entries.
type NameCount struct {
	Name  string
	Count int
}

// Stats returns the figures of the entries q allows (q.IDs must be nil):
// the entries by source and content type, the summarized ones, their
// images and node summaries, the number of threads and of distinct tags, and the top
// threads and top tags by entries (count DESC, then name ASC in byte
// order, as SQL orders them under the stores' binary collation), at most
// topThreads and topTags of them. An entry's tag counts once however
// often its list repeats it (the stores keep (entry, tag) unique).
//
// Like Threads it is one pass over the allowed ordinals, tallied per
// shape (a shape names the thread, source, content type, tags, summary
// flag, image and node counts), then a pass over the shapes met: the work
// follows what the caller may read, not what the store holds. SQL's
// four aggregates visited every row of every principal, or, through the
// owner, public and grant indexes, cost 2.4-5x more per row read.
func (c *Catalog) Stats(q Query, topThreads, topTags int) Stats {
	c.mu.RLock()
	defer c.mu.RUnlock()
	b := c.allowed(q)
	perShape := map[uint32]int{}
	buf := make([]uint32, 256)
	it := b.ManyIterator()
	for n := it.NextMany(buf); n > 0; n = it.NextMany(buf) {
		for _, o := range buf[:n] {
			perShape[c.slots[o].shape]++
		}
	}
	st := Stats{BySource: map[string]int{}, ByContentType: map[string]int{}}
	threads, tags := map[string]int{}, map[string]int{}
	var seen []string // the tags of one shape, to count each once
	for sh, n := range perShape {
		k := &c.shapes.recs[sh].key
		st.Total += n
		st.BySource[k.source.Value()] += n
		st.ByContentType[k.ctype.Value()] += n
		if k.summarized {
			st.Summarized += n
		}
		st.Images += n * int(k.images)
		st.Nodes += n * int(k.nodes)
		threads[k.thread.Value()] += n
		seen = seen[:0]
		for t := range strs(k.tags) {
			if !slices.Contains(seen, t) {
				seen = append(seen, t)
				tags[t] += n
			}
		}
	}
	st.Threads, st.TopThreads = len(threads), top(threads, topThreads)
	st.Tags, st.TopTags = len(tags), top(tags, topTags)
	return st
}

// top is the n names of m with the most entries, count DESC then name
// ASC.
func top(m map[string]int, n int) []NameCount {
	out := make([]NameCount, 0, len(m))
	for name, c := range m {
		out = append(out, NameCount{Name: name, Count: c})
	}
	slices.SortFunc(out, func(a, b NameCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Name, b.Name))
	})
	return out[:min(n, len(out))]
}
