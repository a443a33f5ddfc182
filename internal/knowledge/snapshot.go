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
// Format: magic "CXKNOW02"; the mark (seq uvarint, entry id string);
// the document count, then per document its id, container, path,
// generation, job, size, status, text hash, indexed-at (Unix ns, 0 for
// none), model, dims and chunks (kind byte, string, start, end, vector
// length and its int16 codes, little-endian, veccode.go); a CRC-32C of everything before
// it. A string is a uvarint length and its bytes. A chunk of kind
// 1 is a span of its document's entry text and its string the
// breadcrumb (indexedChunk): loading reads the entry texts from the
// store (as the rebuild from SQL does, without chunking or embedding
// again). Kind 0 holds the chunk's text. CXKNOW01, which held every
// chunk's text, and CXKNOW02, which held float32 vectors, are not read:
// the index is rebuilt from SQL once.
const snapMagic = "CXKNOW03"

// Chunk kinds of the snapshot.
const (
	snapText byte = 0
	snapSpan byte = 1
)

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
		kind := snapText
		if c.span {
			kind = snapSpan
		}
		b = append(b, kind)
		b = appendStr(b, c.str)
		b = binary.AppendUvarint(b, uint64(max(c.start, 0)))
		b = binary.AppendUvarint(b, uint64(max(c.end, 0)))
		b = binary.AppendUvarint(b, uint64(len(c.vec)))
		for _, x := range c.vec {
			b = binary.LittleEndian.AppendUint16(b, uint16(x))
		}
	}
	return b
}

// snapDoc is one decoded document: its state and its chunks' texts (or
// spans) and vectors' codes, indexed again on load.
type snapDoc struct {
	id     string
	d      docIndex
	chunks []snapChunk
	codes  [][]int16
}

// snapChunk is a decoded chunk: its text, or with span its breadcrumb.
type snapChunk struct {
	str        string
	start, end int
	span       bool
}

// spans reports whether some chunk of sd is a span, whose text is read
// from the document's entry.
func (sd *snapDoc) spans() bool {
	for _, c := range sd.chunks {
		if c.span {
			return true
		}
	}
	return false
}

// chunksIn are sd's chunks with their texts, the spans cut from text
// (the document's entry text); false when a span does not fit it.
func (sd *snapDoc) chunksIn(text string) ([]Chunk, bool) {
	out := make([]Chunk, len(sd.chunks))
	for i, c := range sd.chunks {
		out[i] = Chunk{Text: c.str, Start: c.start, End: c.end}
		if !c.span {
			continue
		}
		if c.start < 0 || c.end > len(text) || c.start > c.end {
			return nil, false
		}
		out[i].Text = text[c.start:c.end]
		if c.str != "" {
			out[i].Text = c.str + "\n\n" + out[i].Text
		}
	}
	return out, true
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
		sd.chunks = make([]snapChunk, 0, nc)
		sd.codes = make([][]int16, 0, nc)
		var slab []int16 // the document's codes in one allocation (encodeVecs)
		for range nc {
			var c snapChunk
			switch k := r.Bytes(1); {
			case r.Err != nil:
			case k[0] == snapSpan:
				c.span = true
			case k[0] != snapText:
				r.Fail("chunk kind %d", k[0])
			}
			c.str = str()
			c.start, c.end = int(min(r.Uvarint(), math.MaxInt32)), int(min(r.Uvarint(), math.MaxInt32))
			if c.span && c.start > c.end && r.Err == nil {
				r.Fail("span %d-%d", c.start, c.end)
			}
			nv := r.Count(2)
			raw := r.Bytes(2 * nv)
			var v []int16
			if nv > 0 && r.Err == nil {
				if slab == nil { // no more than the bytes left can fill
					slab = make([]int16, 0, min(nv*nc, nv+len(r.B)/2))
				}
				at := len(slab)
				for j := range nv {
					slab = append(slab, int16(binary.LittleEndian.Uint16(raw[2*j:])))
				}
				v = slab[at:len(slab):len(slab)]
			}
			sd.chunks = append(sd.chunks, c)
			sd.codes = append(sd.codes, v)
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
	for len(docs) > 0 {
		n := min(len(docs), textBatch)
		if err := s.loadDocs(ctx, docs[:n]); err != nil {
			return "", err
		}
		clear(docs[:n]) // their chunks are in the index now
		docs = docs[n:]
	}
	s.idx.mu.Lock()
	s.idx.wm, s.idx.changed = m.Seq, 0
	s.idx.mu.Unlock()
	return "", nil
}

// loadDocs indexes decoded documents, reading the entry texts of those
// with spans (one query). A document whose text is gone or is not the one
// its chunks were cut from changed after the snapshot's mark, so the
// change log's replay indexes it again: it is put without chunks and
// with no text hash, so the replay cannot keep them (keepChunks).
func (s *Service) loadDocs(ctx context.Context, docs []snapDoc) error {
	var ids []string
	for i := range docs {
		if docs[i].spans() {
			ids = append(ids, docs[i].id)
		}
	}
	texts := map[string]string{}
	if len(ids) > 0 {
		read, err := s.st.IndexDocs(ctx, ids)
		if err != nil {
			return fmt.Errorf("knowledge index: snapshot texts: %w", err)
		}
		for i := range read {
			texts[read[i].ID] = read[i].Text
		}
	}
	for i := range docs {
		sd := &docs[i]
		codes := sd.codes
		for _, v := range codes {
			if v == nil {
				codes = nil // a document's vectors come whole or not at all
				break
			}
		}
		d := sd.d
		text, read := texts[sd.id]
		chunks, ok := sd.chunksIn(text)
		if sd.spans() && (!read || !textMatches(text, d.hash)) || !ok {
			d.hash = ""
		} else {
			d.chunks, d.totalLen = s.idx.indexCoded(text, chunks, codes)
		}
		s.idx.put(sd.id, &d, false)
	}
	return nil
}
