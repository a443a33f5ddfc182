package search

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/contextd/contextd/index/catalog"
	"github.com/contextd/contextd/internal/compress"
	"github.com/contextd/contextd/internal/follow"
	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/quant"
	"github.com/contextd/contextd/vector"
)

// The in-process vector index: our HNSW graphs over the chunk vectors,
// one per large access scope and a pool of the small scopes' chunks
// (vecpart.go), keyed by the chunk's database row id, and a catalog of
// the entries (access fields and structural filters as bitmaps) that
// yields the allowed set of a search. Like the full-text index it follows the SQL change log through
// package follow (applied in the background after each commit, caught up
// before each search) and never writes SQL.
//
// The graphs are snapshotted on close and from time to time (vector's
// format in one file, vecpartsnap.go), with a state snapshot of the catalog and the
// chunk map at the same change-log watermark (vecstate.go). At start-up a
// matching pair is loaded and the change log after its watermark
// replayed; otherwise the index is rebuilt from SQL, so a snapshot of any
// age, or none, yields exactly the stored vectors. Row ids are never
// reused (AUTOINCREMENT), so a key always names the same vector.

// vecIndex is the in-process vector index of an engine.
type vecIndex struct {
	st       persist.Store
	dir      string
	progress io.Writer
	follow   *follow.Follower // owns the watermark and the applier

	p     *partition // the pool and the scope graphs (vecpart.go), under emu
	cat   *catalog.Catalog
	codec *compress.Codec // reads stored codes; nil with compression off

	// emu guards p and cm. Lock order: emu before the graphs' own locks,
	// in searches (read) and in applies (write) alike.
	emu sync.RWMutex
	cm  *chunkMap // chunk key -> entry ordinal and range; ordinal -> keys
	wm  int64     // the change-log seq applied up to (under emu)

	// Snapshots are also written in the background once enough has
	// changed, so a killed process restarts from a recent graph instead of
	// rebuilding it (reconcile adds what the snapshot lacks either way).
	snapMu   sync.Mutex
	changed  int // chunk adds and deletes since the last snapshot
	lastSnap time.Time
}

// Background snapshot policy: at least snapEvery changed chunks and
// snapGap since the last snapshot.
const (
	snapEvery = 5000
	snapGap   = time.Minute
)

// openVecIndex loads the snapshots (if any) or reconciles with SQL,
// catches up with the change log and starts following it on feed.
// The graph's storage follows comp (graphOptions).
func openVecIndex(ctx context.Context, st persist.Store, feed *follow.Feed, dim int, comp quant.Settings, dir string, progress io.Writer) (*vecIndex, error) {
	vi := &vecIndex{
		st: st, dir: dir, progress: progress,
		cat: catalog.New(), cm: newChunkMap(0, 0),
	}
	began := time.Now()
	vo, err := graphOptions(dim, comp)
	if err != nil {
		return nil, err
	}
	if vi.codec, err = compress.New(comp, dim); err != nil {
		return nil, fmt.Errorf("vector index: %w", err)
	}
	var ls loadedState
	done := make(chan struct{})
	if vi.dir != "" {
		go func() { defer close(done); ls = vi.readState() }()
	} else {
		close(done)
	}
	int8From := comp.GraphInt8Chunks(dim)
	lg, why := vi.loadSnapshot(dim, vo, int8From)
	<-done
	var state *vecState
	if lg != nil {
		// The state snapshot (vecstate.go) spares the scans of SQL.
		if state, why, _, err = vi.loadState(ctx, lg, ls); err != nil {
			return nil, err
		}
		if state != nil {
			if vi.p, why = vi.adopt(lg, state, dim, vo, int8From); vi.p == nil {
				state = nil
			}
		}
	}
	if vi.p == nil {
		if vi.p, err = newPartition(dim, vo, int8From); err != nil {
			return nil, err
		}
	}
	vi.follow = feed.Follow("vector index", vi)
	if state != nil {
		vi.cat, vi.cm, vi.wm = state.cat, state.cm, state.mark.Seq
		vi.follow.Resume(state.mark.Seq) // Start replays the rows after it
	} else if err := vi.reconcileAll(ctx, why, began); err != nil {
		return nil, err
	}
	if err := vi.follow.Start(ctx); err != nil {
		return nil, err
	}
	return vi, nil
}

// reconcileAll builds the (empty) partition's pool and graphs from the
// stored vectors and fills the catalog and the chunk map from SQL; the
// watermark is the change-log head read before the scans.
func (vi *vecIndex) reconcileAll(ctx context.Context, why string, began time.Time) error {
	return vi.follow.Rebuild(ctx, func(ctx context.Context, head int64) error {
		added, removed, err := vi.reconcile(ctx)
		if err != nil {
			return err
		}
		vi.changed = added + removed // a large reconcile is snapshotted soon
		vi.wm = head
		if added > 1000 || why != "" && head > 0 {
			fmt.Fprintf(vi.progress, "contextd: vector index: %s; %d chunk vectors added and %d removed to match SQL in %s\n",
				cmp.Or(why, "snapshot loaded"), added, removed, time.Since(began).Round(time.Millisecond))
		}
		return nil
	})
}

// codesEfConstruction is the codes-only graph's candidate list while
// inserting. TestQuantEfConstruction, 30k built-in sentence vectors,
// 2026-12-03 (loaded machine): CPU per insert 237 µs at 128 (the vector
// package's default; float32: 209 µs), 129 µs at 64, 102 µs at 48, for
// recall@10 against exact float32 of 0.879, 0.872 and 0.870 (the codes'
// own ceiling, by exact scan, 0.886). 64 keeps the graph within 0.015 of
// that ceiling at half the insertion cost, which store throughput needs.
const codesEfConstruction = 64

// floatEfConstruction is the float32 graph's candidate list while
// inserting (the default configuration keeps the floats, so this is the
// graph every default store inserts into). Insertion was half the CPU of
// store_context_batch at 100k (CPU profile, 2026-12-03: 47 of 107 s for
// 110k entries, ahead of SQL and Bleve). TestQuantEfConstruction, 100k
// built-in sentence vectors, L2, 2026-12-03 (load average 22 on the two
// cores, so CPU figures are inflated alike): CPU per insert 526 µs at 128,
// 338 at 96, 238 at 64; recall@10 against exact float32 at efSearch 96
// 0.975, 0.970, 0.961 (at efSearch 128: 0.984, 0.979, 0.971). 64 cuts
// insertion by 55 % and keeps the engine's search (k = rank.Depth, so ef
// 100) above the 0.95 gate (TestGraphRecallSentences100k_C14).
const floatEfConstruction = 64

// floatEfSearch is the float32 graph's beam while searching, with
// KeepPruned while inserting (vector.Options). Measured 2026-12-04 on
// 100k Go doc paragraphs in walk order, the corpus `contextd bench`
// stores at 100k, queried with six words of a paragraph as the bench
// asks (vector's TestParagraphRecall, load average 32-46 on two cores):
// recall@10 against the exact scan was 0.912 at the beam the rank depth
// gave before (100), and 0.944 even at 400, on the heuristic's short
// neighbour lists; short queries sit between paragraphs and the walk
// stalls in a dense run of one file's paragraphs. Filling the lists with
// the pruned candidates (1.27-1.71 times the CPU per insert) gives 0.934
// at 100, 0.967 at 200, 0.976 at 256 and 0.977 at 300: 300 keeps a
// margin above the 0.97 the engine is held to (efConstruction 256
// without it: 0.961 at 100, 0.975 at 200, for 3.3 times the insert CPU).
const floatEfSearch = 300

// graphOptions chooses the graph's storage. With the float32 vectors kept
// (comp.CodesOnly false) the graph runs on them. Measured 2026-12-03: building on
// codes took 30 % more CPU per insert at 100-d and 80 % more at 384-d
// (BenchmarkBuildStorage, 10k; comparisons between stored nodes decode
// codes, and every insert builds its query tables), and on 100k built-in
// sentence vectors codes with float32 re-ranking reached recall@10 0.968
// against 0.974 on float32, with 10 % more memory (codes beside the
// floats; TestQuantRecallGloVe100k). By default
// (COMPRESSION_KEEP_FLOAT=false) the graph holds codes only: 296 instead
// of 663 bytes per vector and 2.3 times less heap, at recall@10 0.83.
//
// A large scope's graph holds its vectors as 8-bit integers instead
// (partition.compact, vecpart.go).
func graphOptions(dim int, comp quant.Settings) (vector.Options, error) {
	vo := vector.Options{Metric: vector.L2}
	q, err := comp.Quantizer(dim) // validated even when the floats serve
	if err != nil {
		return vo, fmt.Errorf("vector index: %w", err)
	}
	vo.EfConstruction, vo.EfSearch, vo.KeepPruned = floatEfConstruction, floatEfSearch, true
	if comp.CodesOnly {
		vo.Quantizer = q
		vo.EfConstruction, vo.EfSearch, vo.KeepPruned = codesEfConstruction, 0, false
	}
	return vo, nil
}

// reconcile fills the catalog, the chunk map and the empty partition
// from SQL. A graph snapshot that came without a usable state snapshot is
// not reused: its graphs would have to be split or merged by the scopes
// the catalog gives, and a rebuild (AddBatch on every core) is always
// right; that path is taken after a crash between the two renames or
// after re-embedding, not on an ordinary restart.
func (vi *vecIndex) reconcile(ctx context.Context) (added, removed int, err error) {
	err = follow.Scan(ctx, "vector index: scan entries", vi.st.ScanAccessDocs, indexDocID, func(docs []persist.IndexDoc) error {
		for i := range docs {
			vi.cat.Put(catalogEntry(&docs[i]))
		}
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	var scopes []string // per ordinal (one string per shape, shared)
	vi.cat.Scopes(func(ord uint32, key string) {
		if int(ord) >= len(scopes) {
			scopes = append(scopes, make([]string, int(ord)+1-len(scopes))...)
		}
		scopes[ord] = key
	})
	err = follow.Scan(ctx, "vector index: scan vectors", vi.st.ScanVectorDocs, vectorDocID, func(vdocs []persist.VectorDoc) error {
		// A page's new chunks go into each index in one AddBatch, which
		// runs their candidate searches on every core (vector/hnsw_batch.go).
		var b chunkBatch
		for i := range vdocs {
			d := &vdocs[i]
			ord, ok := vi.cat.Ordinal(d.ID)
			if !ok || len(d.Chunks) == 0 || int(ord) >= len(scopes) {
				continue
			}
			keys := make([]uint64, 0, len(d.Chunks))
			items := make([]vector.BatchItem, 0, len(d.Chunks))
			for _, c := range d.Chunks {
				keys = append(keys, c.Key)
				it, err := vi.graphItem(&c)
				if err != nil {
					return fmt.Errorf("vector index: entry %s: %w", d.ID, err)
				}
				items = append(items, it)
			}
			slices.Sort(keys)
			b.add(ord, scopes[ord], keys, items, d.Chunks)
			added += len(items)
		}
		return b.flush(vi)
	})
	if err != nil {
		return 0, 0, err
	}
	return added, 0, nil
}

func vectorDocID(d *persist.VectorDoc) string { return d.ID }

// catalogEntry converts a stored entry to the catalog's form.
func catalogEntry(d *persist.IndexDoc) catalog.Entry {
	return catalog.Entry{
		ID: d.ID, Owner: d.Owner, Public: d.Visibility == visibilityPublic, Readers: readers(d.Grants),
		ThreadID: d.ThreadID, Source: d.Source, ContentType: d.ContentType,
		Tags: d.Tags, CreatedAt: d.CreatedAt, Summarized: d.Summarized, Images: d.ImageCount,
		Nodes: d.NodeCount,
	}
}

// Apply applies one batch of the change log: each changed entry is
// re-read (access fields, filters, chunk keys); a changed set of chunk
// keys replaces the entry's vectors in the graph. The watermark (last)
// reaches the disk with the next snapshot pair (vecstate.go).
func (vi *vecIndex) Apply(ctx context.Context, ids []string, last int64) error {
	docs, err := accessDocs(vi.st)(ctx, ids) // the catalog's fields; the text is not needed
	if err != nil {
		return fmt.Errorf("vector index: read entries: %w", err)
	}
	vdocs, err := vi.st.VectorDocs(ctx, ids)
	if err != nil {
		return fmt.Errorf("vector index: read vectors: %w", err)
	}
	exists := make(map[string]bool, len(docs))
	for i := range docs {
		exists[docs[i].ID] = true
	}
	vecs := make(map[string]*persist.VectorDoc, len(vdocs))
	for i := range vdocs {
		vecs[vdocs[i].ID] = &vdocs[i]
	}
	vi.emu.Lock()
	defer vi.emu.Unlock()
	// The entries' new chunks go into the graph in one AddBatch (a large
	// catch-up then links on every core; vecbatch.go).
	var b chunkBatch
	for i := range docs {
		e := catalogEntry(&docs[i])
		ord := vi.cat.Put(e)
		if err := vi.setChunks(docs[i].ID, ord, catalog.ScopeOf(&e), vecs[docs[i].ID], &b); err != nil {
			return errors.Join(err, b.flush(vi)) // the entries before it are applied
		}
	}
	if err := b.flush(vi); err != nil {
		return err
	}
	for _, id := range ids {
		if !exists[id] {
			if ord, ok := vi.cat.Ordinal(id); ok {
				if err := vi.dropChunks(ord); err != nil { // before the catalog may reuse ord
					return err
				}
			}
			vi.cat.Remove(id)
		}
	}
	vi.wm = max(vi.wm, last)
	return nil
}

// setChunks replaces the index's chunks of entry id when its keys or its
// access scope changed: the old ones are deleted now, the new ones queued
// on b, which adds them to the scope's index and records them in the
// chunk map. Nothing of the entry is
// queued when one of its chunks cannot be converted; it then has no
// chunks, so a retry of the batch (the keys then differ) adds them.
// The caller holds emu.
func (vi *vecIndex) setChunks(id string, ord uint32, scope string, d *persist.VectorDoc, b *chunkBatch) error {
	var keys []uint64
	if d != nil {
		for _, c := range d.Chunks {
			keys = append(keys, c.Key)
		}
		slices.Sort(keys)
	}
	// A live id keeps its ordinal (catalog.Put), so ord's keys are the
	// entry's own.
	if slices.Equal(keys, vi.cm.keys(ord)) && (len(keys) == 0 || vi.p.scopeOf(ord).key == scope) {
		return nil
	}
	if err := vi.dropChunks(ord); err != nil {
		return err
	}
	if len(keys) == 0 {
		return nil
	}
	vi.changed += len(keys)
	items := make([]vector.BatchItem, 0, len(d.Chunks))
	for _, c := range d.Chunks {
		it, err := vi.graphItem(&c)
		if err != nil {
			return fmt.Errorf("vector index: entry %s: %w", id, err)
		}
		items = append(items, it)
	}
	b.add(ord, scope, keys, items, d.Chunks)
	return nil
}

// graphItem is stored chunk c in the form the graph runs on: a graph of
// codes takes the stored code as it is (vector.AddCode's form: nothing is
// encoded twice), a float32 graph the stored vector, or the code's
// reconstruction when SQL holds only the code (COMPRESSION_KEEP_FLOAT
// turned on over a database of codes).
func (vi *vecIndex) graphItem(c *persist.KeyedChunk) (vector.BatchItem, error) {
	if vi.p.pool.Quantizer() != nil && c.Code != nil {
		rec, err := vi.codec.Record(nil, c.Code)
		if err != nil {
			return vector.BatchItem{}, err
		}
		return vector.BatchItem{Key: c.Key, Code: rec}, nil
	}
	if c.Vector == nil && vi.codec == nil {
		return vector.BatchItem{}, errors.New("a chunk is stored compressed but compression is off")
	}
	v, err := vi.codec.Vector(&c.ChunkVector)
	if err != nil {
		return vector.BatchItem{}, err
	}
	return vector.BatchItem{Key: c.Key, Vec: v}, nil
}

// dropChunks removes the chunks of the entry of ordinal ord from its
// scope's index and the chunk map. The caller holds emu.
func (vi *vecIndex) dropChunks(ord uint32) error {
	keys := vi.cm.keys(ord)
	err := vi.p.leave(ord, keys, vi.cm)
	vi.changed += len(keys)
	vi.cm.drop(ord)
	return err
}

// exactEntries is the most entries of one scope graph a caller may read
// for which a search measures their chunks one by one (vector.SearchKeys)
// rather than walk the graph; the pool's chunks are always measured so.
// Cost: BenchmarkFilteredSwitch scans 10 % of 10k clustered 384-d vectors
// in 66 µs, 5 % of 100k in 1.1 ms; SearchKeys measures only the listed
// chunks, so 5,000 entries of a few chunks each stay near a millisecond.
// A caller reading more of one scope walks its graph (approximate, and a
// function of that scope alone: vecpart.go). A variable for the tests.
var exactEntries = 5000

// search returns the best rankDepth entries of the allowed set nearest to
// q (best chunk per entry; distance ASC, id ASC), from the scopes the
// caller may read (vecpart.go). A caught-up index is the caller's
// business.
func (vi *vecIndex) search(ctx context.Context, q []float32, allowed *roaring.Bitmap, depth int) ([]VectorHit, error) {
	if allowed.IsEmpty() {
		return []VectorHit{}, nil
	}
	vi.emu.RLock()
	defer vi.emu.RUnlock()
	best, err := vi.p.search(ctx, q, allowed, depth, vi.cm)
	if err != nil {
		return nil, err
	}
	type named struct {
		ord uint32
		h   VectorHit
	}
	all := make([]named, 0, len(best))
	for ord, h := range best {
		all = append(all, named{ord, h})
	}
	catalog.Name(vi.cat, all, func(n *named) uint32 { return n.ord }, func(n *named, id string) { n.h.ID = id })
	out := make([]VectorHit, 0, len(all))
	for _, n := range all {
		if n.h.ID != "" { // not live: removed since the search
			out = append(out, n.h)
		}
	}
	slices.SortFunc(out, func(a, b VectorHit) int {
		if c := cmp.Compare(a.Distance, b.Distance); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out[:min(len(out), depth)], nil
}

// allowedSet is the catalog's allowed set for acc and f (metadata
// conditions already turned into f.IDs by the caller).
func (vi *vecIndex) allowedSet(acc persist.Access, f persist.Filter) *roaring.Bitmap {
	return vi.cat.Allowed(catalog.Query{
		Principal: acc.Principal, Groups: acc.Groups,
		ThreadID: f.ThreadID, Source: f.Source, ContentType: f.ContentType,
		Tags: f.Tags, Start: f.Start, End: f.End, IDs: f.IDs, OmitKnowledge: f.OmitKnowledge,
	})
}

// counts reports the readable entries with vectors and their chunks.
func (vi *vecIndex) counts(acc persist.Access) (entries, chunks int) {
	// An aggregate view: knowledge threads are left out (persist.KnowledgeThread).
	allowed := vi.allowedSet(acc, persist.Filter{OmitKnowledge: true})
	vi.emu.RLock()
	defer vi.emu.RUnlock()
	for it := allowed.Iterator(); it.HasNext(); {
		if n := len(vi.cm.keys(it.Next())); n > 0 {
			entries++
			chunks += n
		}
	}
	return entries, chunks
}

// trim hands back the graphs' and the pool's unused capacity
// (vector.Index.Trim) and returns the bytes freed; the copies take at
// most budget bytes. Holding emu for reading keeps applies out while the
// arrays are copied; searches go on.
func (vi *vecIndex) trim(budget int64) int64 {
	vi.emu.RLock()
	defer vi.emu.RUnlock()
	freed := vi.p.pool.Trim(&budget)
	for _, s := range vi.p.graphs {
		if s.g != nil {
			freed += s.g.Trim(&budget)
		}
	}
	return freed
}

// MaybeSnapshot writes a snapshot when enough changed since the last; the
// follower's applier calls it after each background catch-up.
func (vi *vecIndex) MaybeSnapshot() {
	vi.emu.RLock()
	due := vi.changed >= snapEvery && time.Since(vi.lastSnap) >= snapGap
	vi.emu.RUnlock()
	if due {
		_ = vi.writeSnapshot() // a failed background snapshot is retried later
	}
}

// close stops the applier and writes the snapshot.
func (vi *vecIndex) close() error {
	vi.follow.Stop()
	return vi.writeSnapshot()
}
