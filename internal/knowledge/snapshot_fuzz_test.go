package knowledge

import (
	"testing"
	"time"

	"github.com/contextd/contextd/index/snapfmt"
)

// FuzzDecodeSnapshot: any bytes decode to documents or an error, never a
// panic or an allocation the input cannot back; a valid snapshot
// round-trips.
func FuzzDecodeSnapshot(f *testing.F) {
	x := newChunkIndex()
	chunks, total := x.indexChunks([]Chunk{{Text: "the heron waits", Start: 0, End: 15}, {Text: "by the lake", Start: 16, End: 27}},
		[][]float32{{0.5, -1, 2}, {1, 0, 0.25}})
	x.docs["0190abcdef1270008000000000000001"] = &docIndex{container: "c", path: "/a.md", gen: 2, job: "j", size: 27,
		status: Ready, hash: "h", chunks: chunks, totalLen: total, indexedAt: time.Unix(1700000000, 0), model: "m", dims: 3}
	x.docs["0190abcdef1270008000000000000002"] = &docIndex{container: "c", path: "/b.pdf", status: Pending}
	good := encodeMark(x.encode(), snapfmt.Mark{Seq: 9, Entry: "0190abcdef1270008000000000000001"})
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
				d := docs[i].d
				d.chunks, d.totalLen = y.indexChunks(docs[i].chunks, docs[i].vecs)
				y.docs[docs[i].id] = &d
			}
			again := encodeMark(y.encode(), m)
			m2, docs2, err := decodeSnapshot(again)
			if err != nil || m2 != m || len(docs2) != len(docs) {
				t.Fatalf("re-encoded snapshot: %v, %d docs (want %d)", err, len(docs2), len(docs))
			}
		}
	})
}
