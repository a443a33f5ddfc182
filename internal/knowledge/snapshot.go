package knowledge

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/contextd/contextd/index/snapfmt"
)

// The chunk index's snapshot (Options.SnapshotPath, <database>.knowledge
// beside the database): every document's state with its chunks and
// vectors, and the change-log Mark of the watermark it is exact at. A
// restart decodes it and replays the log from the mark instead of
// chunking and embedding every document again (the rebuild from SQL,
// which a missing, damaged or foreign snapshot falls back to).
//
// Format: magic "CXKNOW01"; the mark (seq uvarint, entry id string);
// the document count, then per document its id, container, path,
// generation, job, size, status, text hash, indexed-at (Unix ns, 0 for
// none), model, dims and chunks (text, start, end, vector length and
// float32 bits, little-endian); a CRC-32C of everything before it. A
// string is a uvarint length and its bytes.
const snapMagic = "CXKNOW01"

// save writes the snapshot atomically (snapfmt.WriteFile).
func (s *Service) save(ctx context.Context) error {
	s.saveMu.Lock()
	defer s.saveMu.Unlock()
	s.idx.mu.Lock() // no Apply meanwhile: the index is exactly at wm
	wm := s.idx.wm
	data := s.idx.encode()
	s.idx.changed = 0
	s.idx.mu.Unlock()
	s.lastSave = time.Now()
	m, err := snapfmt.MarkAt(ctx, s.st, wm)
	if err == nil {
		data = encodeMark(data, m)
		err = snapfmt.WriteFile(s.opt.SnapshotPath, 0o644, func(w io.Writer) error {
			_, err := w.Write(data)
			return err
		})
	}
	if err != nil {
		return fmt.Errorf("knowledge index: snapshot: %w", err)
	}
	return nil
}

// encode appends the documents to a buffer that starts with the magic;
// encodeMark then seals it with the mark. The caller holds x.mu.
func (x *chunkIndex) encode() []byte {
	b := []byte(snapMagic)
	b = binary.AppendUvarint(b, uint64(len(x.docs)))
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	for id, d := range x.docs {
		str(id)
		str(d.container)
		str(d.path)
		b = binary.AppendUvarint(b, uint64(max(d.gen, 0)))
		str(d.job)
		b = binary.AppendUvarint(b, uint64(max(d.size, 0)))
		str(d.status)
		str(d.hash)
		var at int64
		if !d.indexedAt.IsZero() {
			at = d.indexedAt.UnixNano()
		}
		b = binary.AppendVarint(b, at)
		str(d.model)
		b = binary.AppendUvarint(b, uint64(max(d.dims, 0)))
		b = binary.AppendUvarint(b, uint64(len(d.chunks)))
		for i := range d.chunks {
			c := &d.chunks[i]
			str(c.Text)
			b = binary.AppendUvarint(b, uint64(max(c.Start, 0)))
			b = binary.AppendUvarint(b, uint64(max(c.End, 0)))
			b = binary.AppendUvarint(b, uint64(len(c.vec)))
			for _, f := range c.vec {
				b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
			}
		}
	}
	return b
}

// encodeMark inserts the mark after the magic and seals the snapshot.
func encodeMark(body []byte, m snapfmt.Mark) []byte {
	out := make([]byte, 0, len(body)+len(m.Entry)+24)
	out = append(out, snapMagic...)
	out = binary.AppendUvarint(out, uint64(m.Seq))
	out = binary.AppendUvarint(out, uint64(len(m.Entry)))
	out = append(out, m.Entry...)
	out = append(out, body[len(snapMagic):]...)
	return snapfmt.Seal(out, 0)
}

// snapDoc is one decoded document: its state and its chunks' texts and
// vectors, indexed again on load.
type snapDoc struct {
	id     string
	d      docIndex
	chunks []Chunk
	vecs   [][]float32
}

// decodeSnapshot reads a snapshot: its mark and documents, or an error
// saying why it cannot be used. Counts are checked against the bytes
// left, so a damaged file allocates nothing it could not fill.
func decodeSnapshot(data []byte) (snapfmt.Mark, []snapDoc, error) {
	body, err := snapfmt.Open(data, snapMagic)
	if err != nil {
		return snapfmt.Mark{}, nil, err
	}
	r := &snapfmt.Reader{B: body}
	str := func() string { return string(r.Bytes(r.Count(1))) }
	m := snapfmt.Mark{Seq: int64(r.Uvarint())}
	m.Entry = str()
	n := r.Count(12)
	docs := make([]snapDoc, 0, n)
	for range n {
		var sd snapDoc
		sd.id = str()
		d := &sd.d
		d.container, d.path = str(), str()
		d.gen = int(min(r.Uvarint(), math.MaxInt32))
		d.job = str()
		d.size = int64(min(r.Uvarint(), math.MaxInt64))
		d.status, d.hash = str(), str()
		if at := r.Varint(); at != 0 {
			d.indexedAt = time.Unix(0, at).UTC()
		}
		d.model = str()
		d.dims = int(min(r.Uvarint(), math.MaxInt32))
		nc := r.Count(4)
		sd.chunks = make([]Chunk, 0, nc)
		sd.vecs = make([][]float32, 0, nc)
		for range nc {
			c := Chunk{Text: str()}
			c.Start, c.End = int(min(r.Uvarint(), math.MaxInt32)), int(min(r.Uvarint(), math.MaxInt32))
			nv := r.Count(4)
			raw := r.Bytes(4 * nv)
			var v []float32
			if nv > 0 && r.Err == nil {
				v = make([]float32, nv)
				for j := range v {
					v[j] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*j:]))
				}
			}
			sd.chunks = append(sd.chunks, c)
			sd.vecs = append(sd.vecs, v)
		}
		if r.Err != nil {
			break
		}
		docs = append(docs, sd)
	}
	if r.Err == nil && len(r.B) != 0 {
		r.Fail("%d bytes after the last document", len(r.B))
	}
	if r.Err != nil {
		return snapfmt.Mark{}, nil, r.Err
	}
	return m, docs, nil
}

// load restores the index from its snapshot; why says why it could not
// ("" when it did), and the caller rebuilds from SQL instead.
func (s *Service) load(ctx context.Context) (why string, err error) {
	data, rerr := os.ReadFile(s.opt.SnapshotPath)
	switch {
	case errors.Is(rerr, os.ErrNotExist):
		return "no snapshot", nil
	case rerr != nil:
		return fmt.Sprintf("snapshot unreadable (%v)", rerr), nil
	}
	m, docs, derr := decodeSnapshot(data)
	if derr != nil {
		return fmt.Sprintf("snapshot unusable (%v)", derr), nil
	}
	why, err = m.Check(ctx, s.st)
	if err != nil || why != "" {
		return why, err
	}
	for i := range docs {
		sd := &docs[i]
		vecs := sd.vecs
		for _, v := range vecs {
			if v == nil {
				vecs = nil // a document's vectors come whole or not at all
				break
			}
		}
		d := sd.d
		d.chunks, d.totalLen = s.idx.indexChunks(sd.chunks, vecs)
		s.idx.put(sd.id, &d, false)
	}
	s.idx.mu.Lock()
	s.idx.wm, s.idx.changed = m.Seq, 0
	s.idx.mu.Unlock()
	return "", nil
}
