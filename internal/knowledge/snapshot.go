package knowledge

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
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

// save writes the snapshot atomically (snapfmt.WriteFile). Documents
// are replaced whole in the index, never changed in place (put), so the
// list taken under the lock is the state at the watermark; it is encoded
// after the lock is released, document by document straight to the
// file, so neither Apply waits for the encoding nor does a copy of the
// whole index exist in memory. Encoding into one buffer and sealing a
// second copy of it allocated twice the index's texts and vectors at
// every snapshot (about 400 MB after a bulk upload of 100 MB of
// Markdown), in the first 30 s after an ingestion.
func (s *Service) save(ctx context.Context) error {
	s.saveMu.Lock()
	defer s.saveMu.Unlock()
	s.idx.mu.Lock()
	wm := s.idx.wm
	docs := make([]idDoc, 0, len(s.idx.docs))
	for id, d := range s.idx.docs {
		docs = append(docs, idDoc{id, d})
	}
	s.idx.changed = 0
	s.idx.mu.Unlock()
	s.lastSave = time.Now()
	m, err := snapfmt.MarkAt(ctx, s.st, wm)
	if err == nil {
		err = snapfmt.WriteFile(s.opt.SnapshotPath, 0o644, func(w io.Writer) error {
			return writeSnapshot(w, m, docs)
		})
	}
	if err != nil {
		return fmt.Errorf("knowledge index: snapshot: %w", err)
	}
	return nil
}

// idDoc is an indexed document with its id.
type idDoc struct {
	id string
	d  *docIndex
}

// writeSnapshot writes the snapshot of docs at mark m to w: the bytes
// snapfmt.Seal would make of them, through a buffer of one document.
func writeSnapshot(w io.Writer, m snapfmt.Mark, docs []idDoc) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	sum := crc32.New(crc32.MakeTable(crc32.Castagnoli))
	out := io.MultiWriter(bw, sum)
	b := []byte(snapMagic)
	b = binary.AppendUvarint(b, uint64(m.Seq))
	b = appendStr(b, m.Entry)
	b = binary.AppendUvarint(b, uint64(len(docs)))
	for _, e := range docs {
		if _, err := out.Write(b); err != nil {
			return err
		}
		b = appendDoc(b[:0], e.id, e.d)
	}
	if _, err := out.Write(b); err != nil {
		return err
	}
	if _, err := bw.Write(binary.LittleEndian.AppendUint32(nil, sum.Sum32())); err != nil {
		return err
	}
	return bw.Flush()
}

// appendStr appends a string: its uvarint length and its bytes.
func appendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// appendDoc appends document id's state and chunks.
func appendDoc(b []byte, id string, d *docIndex) []byte {
	b = appendStr(b, id)
	b = appendStr(b, d.container)
	b = appendStr(b, d.path)
	b = binary.AppendUvarint(b, uint64(max(d.gen, 0)))
	b = appendStr(b, d.job)
	b = binary.AppendUvarint(b, uint64(max(d.size, 0)))
	b = appendStr(b, d.status)
	b = appendStr(b, d.hash)
	var at int64
	if !d.indexedAt.IsZero() {
		at = d.indexedAt.UnixNano()
	}
	b = binary.AppendVarint(b, at)
	b = appendStr(b, d.model)
	b = binary.AppendUvarint(b, uint64(max(d.dims, 0)))
	b = binary.AppendUvarint(b, uint64(len(d.chunks)))
	for i := range d.chunks {
		c := &d.chunks[i]
		b = appendStr(b, c.Text)
		b = binary.AppendUvarint(b, uint64(max(c.Start, 0)))
		b = binary.AppendUvarint(b, uint64(max(c.End, 0)))
		b = binary.AppendUvarint(b, uint64(len(c.vec)))
		for _, f := range c.vec {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
		}
	}
	return b
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
