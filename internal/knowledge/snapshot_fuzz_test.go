package knowledge

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
	"time"

	"github.com/contextd/contextd/index/snapfmt"
)

// FuzzDecodeSnapshot: any bytes decode to documents or an error, never a
// panic or an allocation the input cannot back; a valid snapshot
// round-trips.
func FuzzDecodeSnapshot(f *testing.F) {
	x := newChunkIndex()
	// One span, one chunk under a breadcrumb, one kept text.
	chunks, total := x.indexChunks("the heron waits by the lake", []Chunk{{Text: "the heron waits", Start: 0, End: 15},
		{Text: "Lake\n\nby the lake", Start: 16, End: 27}, {Text: "heron  waits", Start: 4, End: 15}},
		[][]float32{{0.5, -1, 2}, {1, 0, 0.25}, {0, 0, 1}})
	x.docs["0190abcdef1270008000000000000001"] = &docIndex{container: "c", path: "/a.md", gen: 2, job: "j", size: 27,
		status: Ready, hash: "h", chunks: chunks, totalLen: total, indexedAt: time.Unix(1700000000, 0), model: "m", dims: 3}
	x.docs["0190abcdef1270008000000000000002"] = &docIndex{container: "c", path: "/b.pdf", status: Pending}
	good := encodeSnapshot(f, x, snapfmt.Mark{Seq: 9, Entry: "0190abcdef1270008000000000000001"})
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte(snapMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, in := range [][]byte{data, snapfmt.Reseal(data)} {
			m, docs, err := decodeSnapshot(in)
			if err != nil {
				continue
			}
			y := newChunkIndex()
			for i := range docs {
				// A text the spans fit, as the entry's would.
				end := 0
				for _, c := range docs[i].chunks {
					end = max(end, c.end)
				}
				if end > 1<<20 {
					continue
				}
				text := strings.Repeat("x", end)
				chunks, ok := docs[i].chunksIn(text)
				if !ok {
					t.Fatalf("spans %+v do not fit %d bytes", docs[i].chunks, end)
				}
				d := docs[i].d
				d.chunks, d.totalLen = y.indexCoded(text, chunks, docs[i].codes)
				y.docs[docs[i].id] = &d
			}
			again := encodeSnapshot(t, y, m)
			m2, docs2, err := decodeSnapshot(again)
			if err != nil || m2 != m || len(docs2) != len(y.docs) {
				t.Fatalf("re-encoded snapshot: %v, %d docs (want %d)", err, len(docs2), len(docs))
			}
		}
	})
}

// encodeSnapshot is the snapshot of x at m as save writes it.
func encodeSnapshot(tb testing.TB, x *chunkIndex, m snapfmt.Mark) []byte {
	tb.Helper()
	var docs []idDoc
	for id, d := range x.docs {
		docs = append(docs, idDoc{id, d})
	}
	var buf bytes.Buffer
	if err := writeSnapshot(&buf, m, docs); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// TestSnapshotFraming: the streamed snapshot is the one encoded in
// memory and sealed (snapfmt.Seal): magic, mark, count, documents, CRC.
func TestSnapshotFraming(t *testing.T) {
	x := newChunkIndex()
	chunks, total := x.indexChunks("the heron waits", []Chunk{{Text: "the heron waits", Start: 0, End: 15}}, [][]float32{{0.5, -1}})
	x.docs["0190abcdef1270008000000000000001"] = &docIndex{container: "c", path: "/a.md", status: Ready, chunks: chunks, totalLen: total}
	m := snapfmt.Mark{Seq: 3, Entry: "e"}
	want := []byte(snapMagic)
	want = binary.AppendUvarint(want, 3)
	want = appendStr(want, "e")
	want = binary.AppendUvarint(want, 1)
	want = appendDoc(want, "0190abcdef1270008000000000000001", x.docs["0190abcdef1270008000000000000001"])
	want = snapfmt.Seal(want, 0)
	if got := encodeSnapshot(t, x, m); !bytes.Equal(got, want) {
		t.Fatalf("streamed snapshot differs:\n%x\nwant\n%x", got, want)
	}
}
