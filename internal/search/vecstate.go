package search

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/contextd/contextd/index/catalog"
	"github.com/contextd/contextd/index/snapfmt"
)

// The vector index's state snapshot. The graph snapshot (hnsw.snap) holds
// the vectors and their links; this file holds the rest of what start-up
// used to rebuild from SQL: the catalog of the entries (access fields and
// filters, with their ordinals), the chunk map (chunk key -> entry
// ordinal and text range) and the change-log Mark both cover. Without it,
// start-up scanned every entry and every stored vector (of 100k entries,
// 11.9 s of the 12.1 s until searchable, 2026-12-03); with it, start-up
// reads two files and replays the change log after the watermark.
//
// Both files are written from one consistent state (the applier is held
// off while they are filled) and carry the same watermark: the graph's
// own (vector.Index.SetWatermark) and this file's. A crash between the
// two renames leaves watermarks that differ, as does any other mix, and
// then start-up falls back to reconciling the graph with SQL, which is
// always right.
//
// Format, little-endian, varints as encoding/binary's:
//
//	magic "CXVSTAT1"
//	watermark uvarint, mark entry (length uvarint, bytes)
//	chunks uvarint (the graph's live vectors)
//	catalog: length uvarint, catalog.Encode's bytes
//	entries uvarint; per entry: ordinal uvarint, keys uvarint, per key
//	         (ascending) key delta uvarint, index, start, end (zigzag varints)
//	crc32 (Castagnoli) u32 of every byte before it

const (
	vectorStateFile  = "state.snap"
	vectorStateMagic = "CXVSTAT1"
)

// vecState is a decoded state snapshot.
type vecState struct {
	mark    snapfmt.Mark
	nchunks int
	cat     *catalog.Catalog
	cm      *chunkMap
}

// encodeState appends the state snapshot of vi to buf. The caller holds
// emu (read), so no apply changes the catalog or the chunks meanwhile.
func (vi *vecIndex) encodeState(buf []byte, m snapfmt.Mark) []byte {
	start := len(buf)
	buf = append(buf, vectorStateMagic...)
	buf = binary.AppendUvarint(buf, uint64(m.Seq))
	buf = binary.AppendUvarint(buf, uint64(len(m.Entry)))
	buf = append(buf, m.Entry...)
	buf = binary.AppendUvarint(buf, uint64(vi.cm.len()))
	cat := vi.cat.Encode(nil)
	buf = binary.AppendUvarint(buf, uint64(len(cat)))
	buf = append(buf, cat...)
	buf = binary.AppendUvarint(buf, uint64(vi.cm.entries))
	for ord := range len(vi.cm.first) { // ordinal order (any order reads back)
		keys := vi.cm.keys(uint32(ord))
		if len(keys) == 0 {
			continue
		}
		buf = binary.AppendUvarint(buf, uint64(ord))
		buf = binary.AppendUvarint(buf, uint64(len(keys)))
		prev := uint64(0)
		for _, k := range keys {
			_, r, _ := vi.cm.ref(k)
			buf = binary.AppendUvarint(buf, k-prev)
			prev = k
			buf = binary.AppendVarint(buf, int64(r.index))
			buf = binary.AppendVarint(buf, int64(r.start))
			buf = binary.AppendVarint(buf, int64(r.end))
		}
	}
	return snapfmt.Seal(buf, start)
}

// decodeState reads a state snapshot; any damage is an error.
func decodeState(data []byte) (*vecState, error) {
	body, err := snapfmt.Open(data, vectorStateMagic)
	if err != nil {
		return nil, err
	}
	r := &snapfmt.Reader{B: body}
	s := &vecState{}
	seq := r.Uvarint()
	if seq > math.MaxInt64 {
		return nil, errors.New("bad watermark")
	}
	s.mark = snapfmt.Mark{Seq: int64(seq), Entry: string(r.Bytes(r.Count(1)))}
	s.nchunks = int(r.Uvarint())
	cat := r.Bytes(r.Count(1))
	if r.Err != nil {
		return nil, r.Err
	}
	if s.cat, err = catalog.Decode(cat); err != nil {
		return nil, err
	}
	n := r.Count(2)
	switch {
	case r.Err != nil:
		return nil, r.Err
	case n > s.cat.Len():
		return nil, fmt.Errorf("%d entries with chunks, %d in the catalog", n, s.cat.Len())
	case s.nchunks > len(r.B)/4:
		return nil, errors.New("chunk count exceeds the data")
	}
	s.cm = newChunkMap(n, s.nchunks)
	var keys []uint64 // one entry's; kept by the map when several
	seen := 0
	for range n {
		ord := r.Uvarint()
		k := r.Count(4)
		if r.Err != nil {
			break
		}
		if ord > math.MaxUint32 {
			return nil, fmt.Errorf("chunks of ordinal %d", ord)
		}
		if !s.cat.Live(uint32(ord)) {
			return nil, fmt.Errorf("chunks of ordinal %d, not in the catalog", ord)
		}
		if len(s.cm.keys(uint32(ord))) > 0 {
			return nil, fmt.Errorf("chunks of ordinal %d twice", ord)
		}
		if seen+k > s.nchunks {
			return nil, errors.New("more chunks than counted")
		}
		keys = keys[:0]
		key := uint64(0)
		for j := range k {
			d := r.Uvarint()
			if j > 0 && d == 0 {
				r.Fail("chunk keys out of order")
			}
			key += d
			// Any int64 (chunkMap keeps ranges beyond uint32 aside).
			sp := span{index: int(r.Varint()), start: int(r.Varint()), end: int(r.Varint())}
			if r.Err != nil {
				break
			}
			// One lookup, not a look before the put: the map only grows
			// when the key is new (at 1M chunks the look was 0.2 s of a
			// start's CPU, 2026-12-05).
			before := s.cm.len()
			if s.cm.put(key, uint32(ord), sp); s.cm.len() == before {
				return nil, fmt.Errorf("chunk %d twice", key)
			}
			keys = append(keys, key)
		}
		if r.Err != nil {
			break
		}
		seen += len(keys)
		if len(keys) == 1 && keys[0] != 0 {
			s.cm.setKeys(uint32(ord), keys) // copied into the map's array
		} else {
			s.cm.setKeys(uint32(ord), slices.Clone(keys))
		}
	}
	if r.Err == nil && (seen != s.nchunks || len(r.B) != 0) {
		r.Fail("%d chunks of %d counted, %d bytes left", seen, s.nchunks, len(r.B))
	}
	if r.Err != nil {
		return nil, r.Err
	}
	return s, nil
}

// loadedState is a state snapshot read from disk, or why it is unusable.
type loadedState struct {
	s   *vecState
	why string
}

// readState reads and decodes the state snapshot; it runs beside the
// graph's read (both are CPU-bound: on 2 cores the start-up waits for the
// longer of the two instead of their sum).
func (vi *vecIndex) readState() loadedState {
	data, err := os.ReadFile(filepath.Join(vi.dir, vectorStateFile))
	switch {
	case errors.Is(err, os.ErrNotExist):
		return loadedState{why: "no state snapshot"}
	case err != nil:
		return loadedState{why: fmt.Sprintf("state snapshot unreadable (%v)", err)}
	}
	s, err := decodeState(data)
	if err != nil {
		return loadedState{why: fmt.Sprintf("state snapshot unusable (%v)", err)}
	}
	return loadedState{s: s}
}

// loadState checks the state snapshot ls read for graph g; nil with the
// reason when there is none usable. A usable one covers the graphs
// exactly (same watermark, one chunk per live vector) and names a row of
// this store's change log. foreign reports a snapshot of another database
// (or of a later state of a restored one). Either way an unusable state
// has the index rebuilt from SQL (reconcile).
func (vi *vecIndex) loadState(ctx context.Context, lg *loadedGraphs, ls loadedState) (s *vecState, why string, foreign bool, err error) {
	if ls.why != "" {
		return nil, ls.why, false, nil
	}
	s = ls.s
	if wm, ok := lg.watermark(); !ok || uint64(s.mark.Seq) != wm {
		return nil, fmt.Sprintf("state snapshot at %d, graph snapshot at %d", s.mark.Seq, wm), false, nil
	}
	if n := lg.len(); s.nchunks != n {
		return nil, fmt.Sprintf("state snapshot has %d chunks, the graphs %d", s.nchunks, n), false, nil
	}
	if why, err = s.mark.Check(ctx, vi.st); err != nil {
		return nil, "", false, fmt.Errorf("vector index: %w", err)
	}
	if why != "" {
		return nil, why, true, nil
	}
	if why, err = vi.spotCheck(ctx, s); err != nil || why != "" {
		return nil, why, false, err
	}
	return s, "", false, nil
}

// spotChecks is how many entries spotCheck compares with SQL.
const spotChecks = 8

// spotCheck compares the chunk keys of a few entries of s with SQL. One
// writer replaces vectors without a change-log row: `contextd migrate
// reembed` (SetEmbeddings outside an update), which gives every entry new
// chunk keys and leaves the server refusing to start until it completed;
// so after one, no entry keeps its keys and any sample shows it. Entries
// changed after the watermark (the replay will redo them) are not
// sampled. Cost: two queries, about a millisecond.
func (vi *vecIndex) spotCheck(ctx context.Context, s *vecState) (string, error) {
	chs, err := vi.st.Changes(ctx, s.mark.Seq, snapEvery)
	if err != nil {
		return "", fmt.Errorf("vector index: read change log: %w", err)
	}
	changed := make(map[string]bool, len(chs))
	for _, c := range chs {
		changed[c.EntryID] = true
	}
	var ids []string
	var ords []uint32
	for _, ord := range s.cm.sample(spotChecks, func(ord uint32) bool {
		id, _ := s.cat.ID(ord)
		return !changed[id]
	}) {
		id, _ := s.cat.ID(ord)
		ids, ords = append(ids, id), append(ords, ord)
	}
	if len(ids) == 0 {
		return "", nil
	}
	docs, err := vi.st.VectorDocs(ctx, ids)
	if err != nil {
		return "", fmt.Errorf("vector index: read vectors: %w", err)
	}
	got := make(map[string][]uint64, len(docs))
	for _, d := range docs {
		for _, c := range d.Chunks {
			got[d.ID] = append(got[d.ID], c.Key)
		}
	}
	for i, id := range ids {
		keys := got[id]
		slices.Sort(keys)
		if !slices.Equal(keys, s.cm.keys(ords[i])) {
			return fmt.Sprintf("the chunk vectors of entry %s were rewritten without a change-log row (contextd migrate reembed)", id), nil
		}
	}
	return "", nil
}

// writeSnapshot writes the graphs and the state snapshot to the index
// directory atomically (snapfmt.Create: temporary files, sync, rename,
// directory sync). The applier is held off while both are filled, so
// they describe one watermark; searches go on meanwhile.
func (vi *vecIndex) writeSnapshot() error {
	if vi.dir == "" {
		return nil
	}
	vi.snapMu.Lock()
	defer vi.snapMu.Unlock()
	if err := os.MkdirAll(vi.dir, 0o755); err != nil {
		return fmt.Errorf("vector index snapshot: %w", err)
	}
	graph, err := snapfmt.Create(filepath.Join(vi.dir, vectorSnapshotFile))
	if err != nil {
		return fmt.Errorf("vector index snapshot: %w", err)
	}
	defer graph.Abort()
	state, err := snapfmt.Create(filepath.Join(vi.dir, vectorStateFile))
	if err != nil {
		return fmt.Errorf("vector index snapshot: %w", err)
	}
	defer state.Abort()
	vi.emu.Lock()
	vi.changed = 0
	vi.emu.Unlock()
	vi.lastSnap = time.Now()
	if err := vi.fillSnapshot(graph.File, state.File); err != nil {
		return fmt.Errorf("vector index snapshot: %w", err)
	}
	// 0o600: the mode the graph snapshot has always had (os.CreateTemp's).
	if err := graph.Commit(0o600); err != nil {
		return fmt.Errorf("vector index snapshot: %w", err)
	}
	if err := state.Commit(0o600); err != nil {
		return fmt.Errorf("vector index snapshot: %w", err)
	}
	// The one graph of the earlier format, now replaced (vecpartsnap.go).
	if err := os.Remove(filepath.Join(vi.dir, oldVectorSnapshotFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("vector index snapshot: %w", err)
	}
	return nil
}

// fillSnapshot writes the graphs and the state of one watermark.
func (vi *vecIndex) fillSnapshot(graph, state io.Writer) error {
	vi.emu.RLock()
	defer vi.emu.RUnlock()
	m, err := snapfmt.MarkAt(context.Background(), vi.st, vi.wm)
	if err != nil {
		return err
	}
	if err := writeGraphs(graph, vi.p, vi.wm); err != nil {
		return err
	}
	_, err = state.Write(vi.encodeState(nil, m))
	return err
}
