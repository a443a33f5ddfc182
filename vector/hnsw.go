// Package vector owns nearest-neighbour search over embedding vectors: the
// project's own HNSW graph (Malkov & Yashunin, "Efficient and robust
// approximate nearest neighbor search using Hierarchical Navigable Small
// World graphs"), an exact scan, the distance kernels, the switch between
// the two for filtered searches, and the snapshot format.
//
// The graph lives in flat slices: one []float32 with every vector, one
// []uint32 with every node's layer-0 neighbour list (count first, 2·M
// slots), and a map from each node of level > 0 to a small []uint32 with
// its upper layers. Keys are
// the caller's uint64 ids (one per chunk). Deletes leave a tombstone that
// searches route through but never return; Repair (run automatically when
// tombstones pass a fraction of the graph) reconnects their neighbours with
// the selection heuristic, frees the slots and reconnects any node that is
// no longer reachable from the entry point.
//
// Many readers search concurrently; one writer at a time adds or deletes
// (a sync.RWMutex). AddBatch, for bulk loads, runs the candidate searches
// and the reverse links of a round of new nodes on every core under that
// writer's lock, deterministically (hnsw_batch.go).
//
//	ix, _ := vector.New(384, vector.Options{})
//	_ = ix.Add(42, vec)
//	hits, _ := ix.Search(ctx, query, 10, vector.SearchOptions{
//		Allow: func(key uint64) bool { return allowed.Contains(key) },
//	})
package vector

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/contextd/contextd/quant"
)

// Errors wrapped by everything this package returns for caller input.
var (
	ErrDimension = errors.New("vector dimension mismatch")
	ErrInvalid   = errors.New("invalid vector argument")
	ErrCorrupt   = errors.New("corrupt vector snapshot")
)

// Defaults of Options. EfConstruction and EfSearch were chosen with
// BenchmarkCompare, ExactBelow and SwitchCost with BenchmarkFilteredSwitch
// (bench_test.go): recall@10 ≥ 0.95 on 100k clustered 384-d vectors.
// Overfetch (code mode with KeepFloat: k·Overfetch candidates by code
// distance re-ranked by float32, and the beam widened to them) from
// TestQuantRecall100k, 4-bit mse, recall@10 against exact float32 (graph /
// exact scan) at over-fetch 2, 4, 8, 16: 0.767/0.785, 0.901/0.932,
// 0.949/0.988, 0.984/0.9995. Re-ranking 160 float32 distances costs little
// next to the walk.
const (
	DefaultM              = 16
	DefaultEfConstruction = 128
	DefaultEfSearch       = 96
	DefaultExactBelow     = 1024
	DefaultSwitchCost     = 0.2
	DefaultRepairFraction = 0.10
	DefaultOverfetch      = 16
	maxLevelCap           = 16
	noNode                = math.MaxUint32
)

// Options configure an Index. The zero value means the defaults.
type Options struct {
	Metric         Metric
	M              int     // neighbours per node per upper layer (2·M on layer 0)
	EfConstruction int     // candidate list size while inserting
	EfSearch       int     // candidate list size while searching (at least k)
	Seed           uint64  // seeds the level generator; same seed and inserts → same graph
	ExactBelow     int     // a filtered search whose allowed set has at most this many keys scans exactly
	SwitchCost     float64 // ... or when allowed² ≤ SwitchCost·ef·2M·live (see selective)
	RepairFraction float64 // tombstones above this fraction of nodes trigger Repair

	// KeepPruned fills a neighbour list that the selection heuristic
	// left short with the nearest candidates it passed over (the paper's
	// keepPrunedConnections). The heuristic keeps few, diverse neighbours
	// where the data is dense in one direction, such as paragraphs of one
	// file next to each other in insertion order, and a short query (six
	// words of a paragraph) then strands the walk. 100k Go doc paragraphs
	// in walk order, efConstruction 64, queries of six words
	// (TestParagraphRecall, 2026-12-04, load 32-46 on two cores): recall@10
	// without / with 0.912 / 0.934 at efSearch 100, 0.933 / 0.967 at 200,
	// 0.940 / 0.977 at 300 and 0.944 / 0.982 at 400, for 1.27 and 1.71
	// times the CPU per insert in two runs (fuller lists are pruned more
	// often). Not kept in snapshots: set it again with Tune after Read.
	KeepPruned bool

	// Quantizer, when set, stores every vector as its quant code record
	// and runs the graph on codes (see codes.go); its dimension must be
	// the index's. KeepFloat keeps the float32 vectors as well, to re-rank
	// the best Overfetch·k candidates by exact distance.
	Quantizer *quant.Quantizer
	KeepFloat bool
	Overfetch int

	// Int8 stores every vector as dim signed bytes and a float32 scale
	// (int8.go) instead of dim float32 values: 104 instead of 400 bytes
	// a 100-d vector. Not with a Quantizer.
	Int8 bool
}

func (o Options) resolved() Options {
	if o.M <= 0 {
		o.M = DefaultM
	}
	if o.M < 2 {
		o.M = 2
	}
	if o.EfConstruction <= 0 {
		o.EfConstruction = DefaultEfConstruction
	}
	if o.EfSearch <= 0 {
		o.EfSearch = DefaultEfSearch
	}
	if o.ExactBelow <= 0 {
		o.ExactBelow = DefaultExactBelow
	}
	if o.SwitchCost <= 0 {
		o.SwitchCost = DefaultSwitchCost
	}
	if o.RepairFraction <= 0 {
		o.RepairFraction = DefaultRepairFraction
	}
	if o.Overfetch <= 0 {
		o.Overfetch = DefaultOverfetch
	}
	return o
}

// Hit is one search result. Distance is 1 − cosine for Cosine, −dot for
// Dot and Euclidean distance for L2; lower is nearer.
type Hit struct {
	Key      uint64
	Distance float32
}

// Index is an HNSW graph with tombstoned deletes. Use New or ReadFrom.
type Index struct {
	mu  sync.RWMutex
	dim int
	o   Options
	m0  int     // layer-0 capacity (2·M)
	mL  float64 // level multiplier 1/ln(M)
	rng *rand.Rand

	vecs   []float32 // node i at [i*dim, (i+1)*dim); nil in code mode without KeepFloat and with Int8
	bytes8 []int8    // Int8: node i at [i*dim, (i+1)*dim)
	scale8 []float32 // Int8: node i's scale
	quant  *quant.Quantizer
	codes  []byte // code mode: node i at [i*csize, (i+1)*csize)
	csize  int
	slab   []float32    // nodeInto scratch (writers only)
	pruneQ *quant.Query // pruneQuery scratch (writers only)
	keys   []uint64     // node -> key
	levels []uint8      // node -> top layer
	links0 []uint32     // node i at [i*(m0+1)]: count, then neighbours
	// upper holds the upper layers of the nodes above layer 0 (1 in M):
	// node -> layers 1..level, each [count, M neighbours]. A map instead
	// of a slice per node: the slice headers alone were 24 B a node (2.6
	// MB at 107k nodes), the map costs about 50 B per node it holds, about
	// 3 B a node. Only the walk down the upper layers reads it, a few
	// dozen lists per search or insert: BenchmarkQueryStorage and
	// BenchmarkBuildStorage measured no difference (see the README's
	// Performance section, 2026-12-03).
	upper map[uint32][]uint32
	dead  bitset // tombstoned or freed
	freed bitset // slot is free for reuse
	free  []uint32
	byKey keyTable // live key -> node (keys.go)

	entry     uint32
	maxLevel  int
	live      int
	tombs     int
	watermark uint64

	scratch sync.Pool // *searchScratch

	// writes counts the write locks taken (lock): Trim copies the node
	// arrays under the read lock and swaps them in only if none came
	// between.
	writes uint64
}

// lock takes the write lock of a call that may change the index.
func (ix *Index) lock() {
	ix.mu.Lock()
	ix.writes++
}

// New returns an empty index for vectors of dim dimensions.
func New(dim int, o Options) (*Index, error) {
	if dim < 1 || dim > 65535 {
		return nil, fmt.Errorf("%w: dimension %d outside 1..65535", ErrInvalid, dim)
	}
	if !o.Metric.valid() {
		return nil, fmt.Errorf("%w: unknown metric %d", ErrInvalid, o.Metric)
	}
	if o.Quantizer != nil && o.Int8 {
		return nil, fmt.Errorf("%w: 8-bit storage and a quantizer exclude each other", ErrInvalid)
	}
	if o.Quantizer != nil && o.Quantizer.Dim() != dim {
		return nil, fmt.Errorf("%w: quantizer has %d dimensions, the index %d", ErrInvalid, o.Quantizer.Dim(), dim)
	}
	o = o.resolved()
	ix := &Index{dim: dim, o: o, upper: map[uint32][]uint32{}, entry: noNode}
	ix.init()
	return ix, nil
}

func (ix *Index) init() {
	ix.m0 = 2 * ix.o.M
	ix.mL = 1 / math.Log(float64(ix.o.M))
	ix.rng = rand.New(rand.NewPCG(ix.o.Seed, 0x9e3779b97f4a7c15^uint64(len(ix.keys))))
	ix.scratch.New = func() any { return &searchScratch{} }
	if ix.o.Quantizer != nil {
		ix.quant, ix.csize = ix.o.Quantizer, ix.o.Quantizer.CodeSize()
	}
}

// Dim is the vector dimension.
func (ix *Index) Dim() int { return ix.dim }

// Len is the number of live (searchable) keys.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.live
}

// Watermark is the change-log sequence the index has applied up to, as set
// by SetWatermark and kept in snapshots.
func (ix *Index) Watermark() uint64 {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.watermark
}

// SetWatermark records the change-log sequence the index now reflects.
func (ix *Index) SetWatermark(seq uint64) {
	ix.lock()
	ix.watermark = seq
	ix.mu.Unlock()
}

// Contains reports whether key is live in the index.
func (ix *Index) Contains(key uint64) bool {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	_, ok := ix.byKey.get(ix.keys, key)
	return ok
}

func (ix *Index) vec(id uint32) []float32 {
	o := int(id) * ix.dim
	return ix.vecs[o : o+ix.dim : o+ix.dim]
}

func (ix *Index) neighbours(id uint32, l int) []uint32 {
	if l == 0 {
		b := int(id) * (ix.m0 + 1)
		return ix.links0[b+1 : b+1+int(ix.links0[b])]
	}
	u := ix.upper[id]
	b := (l - 1) * (ix.o.M + 1)
	return u[b+1 : b+1+int(u[b])]
}

func (ix *Index) setNeighbours(id uint32, l int, ns []uint32) {
	if l == 0 {
		b := int(id) * (ix.m0 + 1)
		ix.links0[b] = uint32(copy(ix.links0[b+1:b+1+ix.m0], ns))
		return
	}
	u := ix.upper[id]
	b := (l - 1) * (ix.o.M + 1)
	u[b] = uint32(copy(u[b+1:b+1+ix.o.M], ns))
}

func (ix *Index) capacity(l int) int {
	if l == 0 {
		return ix.m0
	}
	return ix.o.M
}

// checkVector validates a caller's vector: right length, finite values.
func (ix *Index) checkVector(v []float32) error {
	if len(v) != ix.dim {
		return fmt.Errorf("%w: got %d, want %d", ErrDimension, len(v), ix.dim)
	}
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("%w: component %d is not finite", ErrInvalid, i)
		}
	}
	return nil
}

type bitset []uint64

func (b *bitset) grow(n int) {
	for len(*b)*64 < n {
		*b = append(*b, 0)
	}
}
func (b bitset) has(i uint32) bool { return b[i>>6]&(1<<(i&63)) != 0 }
func (b bitset) set(i uint32)      { b[i>>6] |= 1 << (i & 63) }
func (b bitset) clear(i uint32)    { b[i>>6] &^= 1 << (i & 63) }
