package vector

import (
	"context"
	"fmt"
	"slices"
)

// SearchKeys returns the k nearest of the given keys to q by exact
// distance, nearest first, ties by key; keys not live in the index are
// skipped. In code mode with KeepFloat the Overfetch·k nearest by code
// distance are re-ranked by float32 distance, as the exact scan does.
//
// It measures only the listed keys, so its answer depends on their
// vectors alone: neither on the other keys of the index nor on node
// numbers (which follow the order of every insertion), and its cost is
// proportional to len(keys), not to the index. The vector index of
// internal/search keeps every small access scope in one shared index
// and scans a caller's chunks of it with SearchKeys (vecpart.go).
func (ix *Index) SearchKeys(ctx context.Context, q []float32, k int, keys []uint64) ([]Hit, error) {
	if err := ix.checkQuery(ctx, q, k); err != nil {
		return nil, err
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.live == 0 || len(keys) == 0 {
		return nil, nil
	}
	s := ix.queryScratch(q)
	defer ix.scratch.Put(s)
	z := ix.querierFor(s, s.q)
	kk := k
	if ix.quant != nil && ix.vecs != nil {
		kk = k * ix.o.Overfetch
	}
	// Candidates are numbered by their key's place in ascending order, so
	// the result heap's tie on number is the tie on key (the shared heap
	// of heap.go, whose ties go by number).
	sorted := slices.Clone(keys)
	slices.Sort(sorted)
	nodes := make([]uint32, 0, len(sorted))
	h := make(maxHeap, 0, min(kk, len(sorted))+1)
	for _, key := range sorted {
		id, ok := ix.byKey.get(ix.keys, key)
		if !ok {
			continue
		}
		c := cand{z.dist(id), uint32(len(nodes))}
		nodes = append(nodes, id)
		switch {
		case len(h) < kk:
			h.push(c)
		case c.less(h[0]):
			h.pop()
			h.push(c)
		}
	}
	cs := make([]cand, len(h))
	for i := range h {
		cs[i] = cand{h[i].d, nodes[h[i].id]}
	}
	res := ix.hits(ix.rerank(s.q, cs)) // sorted by distance, then key
	return res[:min(k, len(res))], nil
}

// checkQuery checks the arguments of Search and SearchKeys.
func (ix *Index) checkQuery(ctx context.Context, q []float32, k int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if k < 1 {
		return fmt.Errorf("%w: k must be at least 1, got %d", ErrInvalid, k)
	}
	return ix.checkVector(q)
}

// queryScratch is a pooled scratch holding q in index space (normalised
// for Cosine); the caller puts it back.
func (ix *Index) queryScratch(q []float32) *searchScratch {
	s := ix.getScratch()
	s.q = append(s.q[:0], q...)
	if ix.o.Metric == Cosine {
		normalize(s.q)
	}
	return s
}

// Items returns the live keys among keys in the form AddBatch takes, in
// their order: in an index of codes only the code record (nothing is
// encoded twice), in an Int8 index its bytes and scale (with their
// reconstruction), else the stored float32 vector. Moving keys between L2
// or Dot indexes of the same options this way keeps every distance to
// them bit for bit; a Cosine index stores normalised vectors, which the
// next index normalises again (the last bit may move).
func (ix *Index) Items(keys []uint64) []BatchItem {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	out := make([]BatchItem, 0, len(keys))
	for _, key := range keys {
		id, ok := ix.byKey.get(ix.keys, key)
		if !ok {
			continue
		}
		if ix.o.Int8 {
			v := make([]float32, ix.dim)
			dequantize8(v, ix.i8(id), ix.scale8[id])
			out = append(out, BatchItem{Key: key, Vec: v, Bytes: slices.Clone(ix.i8(id)), Scale: ix.scale8[id]})
			continue
		}
		if ix.vecs == nil {
			out = append(out, BatchItem{Key: key, Code: append([]byte(nil), ix.code(id)...)})
			continue
		}
		out = append(out, BatchItem{Key: key, Vec: append([]float32(nil), ix.vec(id)...)})
	}
	return out
}
