package search

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/contextd/contextd/index/snapfmt"
	"github.com/contextd/contextd/vector"
)

// The graph snapshot of the partitioned vector index (vecpart.go): the
// pool's and every scope graph's vector snapshot back to back, then a
// table naming them, so start-up finds each by offset:
//
//	magic "CXVPART1"
//	graphs: vector snapshots (their own header and checksum each)
//	table:  magic "CXVPTAB1", count uvarint; per graph: scope key
//	        (length uvarint, bytes; "" the pool), offset uvarint,
//	        length uvarint; crc32 (Castagnoli) u32 of the table
//	table length u64
//
// It replaces hnsw.snap, the one graph of every principal's vectors: a
// directory holding only that is rebuilt from SQL (the graph cannot be
// split by scope without the entries' access fields, and a rebuild is
// always right), and the old file is removed with the next snapshot.
const (
	vectorSnapshotFile    = "graphs.snap"
	oldVectorSnapshotFile = "hnsw.snap"
	partMagic             = "CXVPART1"
	partTableMagic        = "CXVPTAB1"
)

// loadedGraphs is a graph snapshot as read: the pool and the scope
// graphs by key, not yet checked against the state snapshot (adopt).
type loadedGraphs struct {
	pool   *vector.Index
	graphs map[string]*vector.Index
}

// len is the number of chunk vectors held.
func (lg *loadedGraphs) len() int {
	n := lg.pool.Len()
	for _, g := range lg.graphs {
		n += g.Len()
	}
	return n
}

// watermark is the graphs' common watermark; ok false when they differ.
func (lg *loadedGraphs) watermark() (uint64, bool) {
	w := lg.pool.Watermark()
	for _, g := range lg.graphs {
		if g.Watermark() != w {
			return 0, false
		}
	}
	return w, true
}

// writeGraphs writes the pool and the graphs of p, each with watermark
// wm. The caller holds emu.
func writeGraphs(w io.Writer, p *partition, wm int64) error {
	if _, err := w.Write([]byte(partMagic)); err != nil {
		return err
	}
	at := int64(len(partMagic))
	table := append([]byte(nil), partTableMagic...)
	table = binary.AppendUvarint(table, uint64(1+len(p.graphs)))
	put := func(key string, g *vector.Index) error {
		g.SetWatermark(uint64(wm))
		n, err := g.WriteTo(w)
		if err != nil {
			return err
		}
		table = binary.AppendUvarint(table, uint64(len(key)))
		table = append(table, key...)
		table = binary.AppendUvarint(table, uint64(at))
		table = binary.AppendUvarint(table, uint64(n))
		at += n
		return nil
	}
	if err := put("", p.pool); err != nil {
		return err
	}
	for _, s := range p.graphs {
		if err := put(s.key, s.g); err != nil {
			return err
		}
	}
	table = snapfmt.Seal(table, 0)
	table = binary.LittleEndian.AppendUint64(table, uint64(len(table)))
	_, err := w.Write(table)
	return err
}

// CheckVectorSnapshot reports why data is not a whole graph snapshot
// (nil when every graph and the table are intact): what a crash test asks
// of the file a killed writer left.
func CheckVectorSnapshot(data []byte) error {
	_, err := readGraphs(bytes.NewReader(data), int64(len(data)))
	return err
}

// readGraphs reads a graph snapshot of size bytes; any damage is an error.
func readGraphs(f io.ReaderAt, size int64) (*loadedGraphs, error) {
	var head [len(partMagic)]byte
	var tail [8]byte
	if size < int64(len(head)+len(tail)) {
		return nil, errors.New("truncated")
	}
	if _, err := f.ReadAt(head[:], 0); err != nil {
		return nil, err
	}
	if string(head[:]) != partMagic {
		return nil, errors.New("bad magic")
	}
	if _, err := f.ReadAt(tail[:], size-8); err != nil {
		return nil, err
	}
	tlen := binary.LittleEndian.Uint64(tail[:])
	if tlen > uint64(size-8-int64(len(head))) {
		return nil, errors.New("bad table length")
	}
	tstart := size - 8 - int64(tlen)
	table := make([]byte, tlen)
	if _, err := f.ReadAt(table, tstart); err != nil {
		return nil, err
	}
	body, err := snapfmt.Open(table, partTableMagic)
	if err != nil {
		return nil, err
	}
	r := &snapfmt.Reader{B: body}
	lg := &loadedGraphs{graphs: map[string]*vector.Index{}}
	n := r.Count(3)
	for i := 0; i < n && r.Err == nil; i++ {
		key := string(r.Bytes(r.Count(1)))
		at, length := r.Uvarint(), r.Uvarint()
		if r.Err != nil {
			break
		}
		if at < uint64(len(head)) || at > uint64(tstart) || length > uint64(tstart)-at {
			return nil, fmt.Errorf("graph %q outside the file", key)
		}
		g, err := vector.Read(io.NewSectionReader(f, int64(at), int64(length)))
		if err != nil {
			return nil, fmt.Errorf("graph %q: %w", key, err)
		}
		switch {
		case i == 0 && key != "":
			return nil, errors.New("no pool")
		case i == 0:
			lg.pool = g
		case key == "" || lg.graphs[key] != nil:
			return nil, fmt.Errorf("graph %q twice", key)
		default:
			lg.graphs[key] = g
		}
	}
	if r.Err == nil && len(r.B) != 0 {
		r.Fail("%d bytes after the table", len(r.B))
	}
	if r.Err != nil {
		return nil, r.Err
	}
	if lg.pool == nil {
		return nil, errors.New("no pool")
	}
	return lg, nil
}

// loadSnapshot reads the graph snapshot; nil with the reason when there
// is none usable. Under a budget (int8From > 0) a scope graph stored 8-bit
// is kept as it is (partition.compact made it so; adopt converts a float32
// one past the budget).
func (vi *vecIndex) loadSnapshot(dim int, vo vector.Options, int8From int) (*loadedGraphs, string) {
	if vi.dir == "" {
		return nil, ""
	}
	f, err := os.Open(filepath.Join(vi.dir, vectorSnapshotFile))
	if errors.Is(err, os.ErrNotExist) {
		if _, err := os.Stat(filepath.Join(vi.dir, oldVectorSnapshotFile)); err == nil {
			return nil, "snapshot of one graph for every scope (an earlier format)"
		}
		return nil, "no snapshot"
	}
	if err != nil {
		return nil, fmt.Sprintf("snapshot unreadable (%v)", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Sprintf("snapshot unreadable (%v)", err)
	}
	lg, err := readGraphs(f, fi.Size())
	if err != nil {
		return nil, fmt.Sprintf("snapshot unusable (%v)", err)
	}
	o8, eight := graph8Options(vo, int8From)
	for _, g := range append([]*vector.Index{lg.pool}, values(lg.graphs)...) {
		if g.Dim() != dim {
			return nil, fmt.Sprintf("snapshot has %d dimensions, the model %d", g.Dim(), dim)
		}
		if !g.AdoptStorage(vo) && (g == lg.pool || !eight || !g.SameStorage(o8)) {
			return nil, "snapshot stored with other compression settings"
		}
	}
	return lg, ""
}

func values(m map[string]*vector.Index) []*vector.Index {
	out := make([]*vector.Index, 0, len(m))
	for _, g := range m {
		out = append(out, g)
	}
	return out
}

// adopt makes the partition of loaded graphs lg and state s: every entry
// with chunks goes to its scope (the catalog's), each graph to the scope
// of its key; nil with the reason when they disagree (a graph's scope
// holds another number of chunks, or a chunk is not in its scope's
// index).
func (vi *vecIndex) adopt(lg *loadedGraphs, s *vecState, dim int, vo vector.Options, int8From int) (*partition, string) {
	p := &partition{dim: dim, vo: vo, int8From: int8From, pool: lg.pool, scopes: map[string]*vecScope{}, inGraphs: roaring.New()}
	s.cat.Scopes(func(ord uint32, key string) {
		if n := len(s.cm.keys(ord)); n > 0 {
			p.enter(p.scope(key), ord, n, false)
		}
	})
	// An entry of a graph scope is in its graph or, waiting for its
	// group (settle), in the pool.
	for key, g := range lg.graphs {
		sc := p.scopes[key]
		if sc == nil {
			return nil, "a graph of a scope without entries"
		}
		p.setGraph(sc, g)
		for _, ord := range sc.ords.ToArray() {
			if ks := s.cm.keys(ord); g.Contains(ks[0]) {
				sc.gords.Add(ord)
				sc.gchunks += len(ks)
				p.inGraphs.Add(ord)
			}
		}
		if sc.gchunks != g.Len() {
			return nil, fmt.Sprintf("the graph of a scope holds %d chunks, the state snapshot %d", g.Len(), sc.gchunks)
		}
	}
	inPool := 0
	for _, sc := range p.scopes {
		inPool += sc.chunks - sc.gchunks
	}
	if inPool != p.pool.Len() {
		return nil, fmt.Sprintf("the pool holds %d chunks, the state snapshot %d", p.pool.Len(), inPool)
	}
	for _, sc := range p.scopes {
		for it := sc.ords.Iterator(); it.HasNext(); {
			ord := it.Next()
			ix := p.index(sc, ord)
			for _, k := range s.cm.keys(ord) {
				if !ix.Contains(k) {
					return nil, fmt.Sprintf("chunk %d is not in its scope's index", k)
				}
			}
		}
	}
	p.pool.Tune(poolOptions(vo))
	for _, sc := range p.graphs {
		sc.g.Tune(vo) // a snapshot keeps the values it was built with
		p.compact(sc) // a float32 graph of a snapshot written before the budget
	}
	return p, ""
}
