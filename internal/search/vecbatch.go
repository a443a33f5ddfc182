package search

import (
	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/vector"
)

// chunkBatch gathers the chunks one Apply adds to the index, so they go in
// with one vector.AddBatch per index (the pool, each scope graph:
// vecpart.go): a follower catching up on many entries (a bulk store, a
// restart behind the change log) runs their candidate searches on every
// core, and a batch below the graph's round minimum goes in one by one as
// before.
type chunkBatch struct {
	es []pendingEntry
}

type pendingChunk struct {
	key uint64
	ord uint32
	sp  span
}

// add queues the converted chunks of the entry of ordinal ord in scope.
func (b *chunkBatch) add(ord uint32, scope string, keys []uint64, items []vector.BatchItem, chunks []persist.KeyedChunk) {
	e := pendingEntry{ord: ord, scope: scope, keys: keys, items: items}
	for _, c := range chunks {
		e.refs = append(e.refs, pendingChunk{c.Key, ord, span{c.Index, c.Start, c.End}})
	}
	b.es = append(b.es, e)
}

// flush adds the queued chunks and records them in the chunk map. When
// an index refuses its chunks, it has taken none (AddBatch checks every
// item first) and their entries keep no chunks (dropChunks ran), so a
// retry of the change-log batch adds them. The caller holds emu.
func (b *chunkBatch) flush(vi *vecIndex) error {
	if len(b.es) == 0 {
		return nil
	}
	defer func() { *b = chunkBatch{} }()
	return vi.p.add(b.es, vi.cm)
}
