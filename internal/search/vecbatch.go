package search

import (
	"fmt"

	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/vector"
)

// chunkBatch gathers the chunks one Apply adds to the graph, so they go in
// with one vector.AddBatch: a follower catching up on many entries (a
// bulk store, a restart behind the change log) runs their candidate
// searches on every core, and a batch below the graph's round minimum
// goes in one by one as before.
type chunkBatch struct {
	items []vector.BatchItem
	refs  []pendingChunk
	ords  []uint32
	keys  [][]uint64 // per ords entry, sorted
}

type pendingChunk struct {
	key uint64
	ord uint32
	sp  span
}

// add queues the converted chunks of the entry of ordinal ord.
func (b *chunkBatch) add(ord uint32, keys []uint64, items []vector.BatchItem, chunks []persist.KeyedChunk) {
	b.items = append(b.items, items...)
	for _, c := range chunks {
		b.refs = append(b.refs, pendingChunk{c.Key, ord, span{c.Index, c.Start, c.End}})
	}
	b.ords = append(b.ords, ord)
	b.keys = append(b.keys, keys)
}

// flush adds the queued chunks and records them in the chunk map. When
// the graph refuses them, it has taken none (AddBatch checks every item
// first) and the entries keep no chunks (dropChunks ran), so a retry of
// the change-log batch adds them. The caller holds emu.
func (b *chunkBatch) flush(vi *vecIndex) error {
	if len(b.items) == 0 {
		return nil
	}
	defer func() { *b = chunkBatch{} }()
	if err := vi.g.AddBatch(b.items); err != nil {
		return fmt.Errorf("vector index: %w", err)
	}
	for _, r := range b.refs {
		vi.cm.put(r.key, r.ord, r.sp)
	}
	for i, ord := range b.ords {
		vi.cm.setKeys(ord, b.keys[i])
	}
	return nil
}
