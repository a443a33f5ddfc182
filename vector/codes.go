package vector

// This file holds the compressed storage of the graph: with
// Options.Quantizer set, every node keeps a quant code record instead of
// its float32 vector (384-d at 4 bits: 196 bytes instead of 1,536), the
// walk measures the query against codes through the query's lookup
// tables (quant.Query, nothing decoded), and distances between stored
// nodes (neighbour selection, pruning) compare their reconstructions in
// rotated space. With Options.KeepFloat the float32 vectors are kept too,
// and the best Overfetch·k candidates by code distance are re-ranked by
// exact distance (DefaultOverfetch 16: 4 reached only 0.90 recall@10 on
// 100k clustered 384-d vectors).

import (
	"unsafe"

	"github.com/contextd/contextd/quant"
)

// querier measures one query against stored nodes.
type querier struct {
	ix *Index
	q  []float32    // the query in index space (normalised for Cosine)
	qq *quant.Query // code mode: the query's lookup tables
}

func (z *querier) dist(n uint32) float32 {
	if z.qq == nil {
		if z.ix.o.Int8 {
			return z.ix.i8DistQ(z.q, n)
		}
		return z.ix.o.Metric.dist(z.q, z.ix.vec(n))
	}
	return z.ix.codeDist(z.qq, n)
}

// prefetchNode starts loading node n's vector or code.
func (ix *Index) prefetchNode(n uint32) {
	if ix.codes != nil {
		prefetch((*float32)(unsafe.Pointer(&ix.codes[int(n)*ix.csize])))
		return
	}
	if ix.o.Int8 {
		o := int(n) * ix.dim
		for i := 0; i < ix.dim; i += 256 {
			prefetch((*float32)(unsafe.Pointer(&ix.bytes8[o+i])))
		}
		// The scale is in an array of its own: a second miss per node,
		// which i8DistQ waited for (0.18 of the 1M semantic leg's 0.73 s
		// of CPU over 500 calls, on that load). Started here too, the
		// kept 1M database's semantic calls took 5-6 % less (sums of 100
		// questions 198, 191, 184, 187 ms against 228, 202, 194, 199,
		// alternated call by call); one line per 64 bytes of the vector
		// instead of four per 256 did no better (190, 193, 177, 186
		// against 188, 185, 172, 188).
		prefetchLine(&ix.scale8[n])
		return
	}
	prefetch(&ix.vecs[int(n)*ix.dim])
}

// prefetchLinks starts loading node n's neighbours on layer 0: the
// search calls it for the next node it will likely expand (the frontier's
// nearest) while it measures the current node's neighbours. Kept 1M
// database, alternated call by call: semantic sums 184, 178, 187, 210 ms
// against 185, 183, 194, 213 without.
func (ix *Index) prefetchLinks(n uint32) {
	prefetch((*float32)(unsafe.Pointer(&ix.links0[int(n)*(ix.m0+1)])))
}

// code is node id's code record.
func (ix *Index) code(id uint32) []byte {
	o := int(id) * ix.csize
	return ix.codes[o : o+ix.csize : o+ix.csize]
}

// codeDist is the metric's internal distance from the query to node n's
// code: the squared distance for L2, −⟨x,q⟩ for Dot, 1 − ⟨x,q⟩ for Cosine.
func (ix *Index) codeDist(qq *quant.Query, n uint32) float32 {
	c := ix.code(n)
	switch ix.o.Metric {
	case L2:
		return qq.L2(c)
	case Dot:
		return -qq.Dot(c)
	}
	return 1 - qq.Dot(c)
}

// querierFor prepares q (already in index space) in s.
func (ix *Index) querierFor(s *searchScratch, q []float32) *querier {
	s.z = querier{ix: ix, q: q}
	if ix.quant != nil {
		if s.qq == nil {
			s.qq, _ = ix.quant.NewQuery(q) // q was checked by the caller
		} else {
			_ = s.qq.Reset(q)
		}
		s.z.qq = s.qq
	}
	return &s.z
}

// pairDist is the distance between two stored nodes.
func (ix *Index) pairDist(a, b uint32) float32 {
	if ix.o.Int8 {
		return ix.i8Pair(a, b)
	}
	return ix.o.Metric.dist(ix.nodeInto(a, 0), ix.nodeInto(b, 1))
}

// nodeInto is node id's vector for comparisons between stored nodes: the
// float32 copy when there is one, else its reconstruction in rotated space
// (quant.Approx) in slot of the writer-owned slab. Callers (insertion,
// pruning, repair) hold the write lock.
func (ix *Index) nodeInto(id uint32, slot int) []float32 {
	if ix.vecs != nil {
		return ix.vec(id)
	}
	if need := (slot + 1) * ix.dim; len(ix.slab) < need {
		ix.slab = append(ix.slab, make([]float32, need-len(ix.slab))...)
	}
	v := ix.slab[slot*ix.dim : (slot+1)*ix.dim : (slot+1)*ix.dim]
	if ix.o.Int8 {
		dequantize8(v, ix.i8(id), ix.scale8[id])
		return v
	}
	_ = ix.quant.Approx(v, ix.code(id))
	return v
}

// pruneQuery is the writer's query for stored node id in code mode
// without float32 vectors (nil otherwise): its reconstruction in rotated
// space, so a full neighbour list is re-measured from id through the
// query tables. Measured 2026-12-03 (BenchmarkBuildStorage, 10k 100-d,
// CPU per insert, interleaved): decoding every neighbour cost about a
// third of an insert on codes.
func (ix *Index) pruneQuery(id uint32) *quant.Query {
	if ix.vecs != nil || ix.quant == nil {
		return nil
	}
	v := ix.nodeInto(id, 0)
	var err error
	if ix.pruneQ == nil {
		ix.pruneQ, err = ix.quant.NewQuery(make([]float32, ix.dim))
	}
	if err == nil {
		err = ix.pruneQ.ResetRotated(v)
	}
	if err != nil {
		return nil // a reconstruction is finite; fall back to decoding
	}
	return ix.pruneQ
}

// slotVec is what nodeInto(id, slot) returned last, without decoding again.
func (ix *Index) slotVec(id uint32, slot int) []float32 {
	if ix.vecs != nil {
		return ix.vec(id)
	}
	return ix.slab[slot*ix.dim : (slot+1)*ix.dim : (slot+1)*ix.dim]
}

// nodeVector is node id's vector in index space: the float32 copy if kept,
// else its reconstruction into buf.
func (ix *Index) nodeVector(id uint32, buf []float32) []float32 {
	if ix.vecs != nil {
		return ix.vec(id)
	}
	if ix.o.Int8 {
		dequantize8(buf, ix.i8(id), ix.scale8[id])
		return buf
	}
	_ = ix.quant.Decode(buf, ix.code(id))
	return buf
}

// rerank replaces the code distances of cs by exact float32 distances
// (KeepFloat) and sorts them; without float32 vectors it does nothing.
func (ix *Index) rerank(q []float32, cs []cand) []cand {
	if ix.codes == nil || ix.vecs == nil {
		return cs
	}
	for i := range cs {
		cs[i].d = ix.o.Metric.dist(q, ix.vec(cs[i].id))
	}
	slicesSortCands(cs)
	return cs
}

// Memory reports the bytes the index holds, by part.
type Memory struct {
	Nodes   int // slots, live or not
	Vectors int // float32 vectors (none in code mode without KeepFloat), or Int8's bytes and scales
	Codes   int // quant code records
	Links   int // neighbour lists, all layers
	Other   int // keys, levels, bitsets, the key table, and the upper layers' map (estimated at 48 bytes a node)
}

// Total is the sum of the parts.
func (m Memory) Total() int { return m.Vectors + m.Codes + m.Links + m.Other }

// PerVector is Total divided by the live nodes.
func (m Memory) PerVector(live int) float64 { return float64(m.Total()) / float64(max(live, 1)) }

// Memory reports the index's memory by part (capacities, not lengths).
func (ix *Index) Memory() Memory {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	m := Memory{Nodes: len(ix.keys), Vectors: 4*cap(ix.vecs) + cap(ix.bytes8) + 4*cap(ix.scale8), Codes: cap(ix.codes), Links: 4 * cap(ix.links0)}
	for _, u := range ix.upper {
		m.Links += 4 * cap(u)
	}
	m.Other = 8*cap(ix.keys) + cap(ix.levels) + 8*(cap(ix.dead)+cap(ix.freed)) + 4*len(ix.byKey.slots) + 48*len(ix.upper)
	return m
}

// Quantizer is the index's quantizer, nil when it stores float32 only.
func (ix *Index) Quantizer() *quant.Quantizer { return ix.quant }

// SameStorage reports whether the index stores vectors as o asks: the
// same quantizer configuration and rotation (fingerprint), or none, and
// the same KeepFloat. A snapshot that differs is rebuilt, not reused.
func (ix *Index) SameStorage(o Options) bool {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.sameStorage(o)
}

func (ix *Index) sameStorage(o Options) bool {
	a, b := ix.quant, o.Quantizer
	if a == nil || b == nil {
		return a == nil && b == nil && ix.o.Int8 == o.Int8
	}
	return a.Config() == b.Config() && a.Fingerprint() == b.Fingerprint() && ix.o.KeepFloat == o.KeepFloat
}
