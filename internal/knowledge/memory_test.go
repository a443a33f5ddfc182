package knowledge

import (
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// TestResidentBytesPerChunk measures what one indexed chunk keeps in
// memory (docs/knowledge.md, Memory): no text (the chunks are spans of
// their document's text, read from the store when returned), its exact
// stream (4 bytes a distinct term, termCounts' narrow layout), its
// vector's codes (2 bytes a dimension, veccode.go) and the fixed part,
// for chunks like those of the bulk-upload measurement (about 500 bytes
// of words drawn from 50,000, 100-dimension vectors). It fails when a
// chunk costs more than the stated formula allows, so a field added to
// every chunk must be accounted for there.
func TestResidentBytesPerChunk(t *testing.T) {
	const chunks, dims = 4000, 100
	r := rand.New(rand.NewPCG(11, 3))
	in := make([]Chunk, chunks)
	var doc strings.Builder
	for i := range in {
		start := doc.Len()
		for doc.Len()-start < 500 {
			doc.WriteString("w" + strconv.FormatUint(uint64(r.IntN(50_000)), 36) + " ")
		}
		in[i] = Chunk{Start: start, End: doc.Len()}
	}
	text := doc.String()
	for i := range in {
		in[i].Text = text[in[i].Start:in[i].End]
	}
	vecs := make([][]float32, chunks) // as the embedder returns them, before m0: the index keeps codes, not these
	for i := range vecs {
		vecs[i] = make([]float32, dims)
		for j := range vecs[i] {
			vecs[i][j] = float32(r.NormFloat64())
		}
	}
	x := newChunkIndex()
	// The vocabulary is warmed first: it grows with distinct words, not
	// with chunks, and is reported apart.
	var m0, m1, m2 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	x.indexChunks(text, in, nil)
	runtime.GC()
	runtime.ReadMemStats(&m1)
	vocabBytes := int(m1.HeapAlloc) - int(m0.HeapAlloc)
	out, _ := x.indexChunks(text, in, vecs)
	runtime.GC()
	runtime.ReadMemStats(&m2)
	per := (float64(m2.HeapAlloc) - float64(m1.HeapAlloc)) / chunks
	terms := 0
	for i := range out {
		terms += out[i].terms.len()
	}
	runtime.KeepAlive(out)
	runtime.KeepAlive(in)   // the chunker's texts, which the index does not keep
	runtime.KeepAlive(vecs) // the embedder's vectors, which it does not keep either
	for i := range out {
		if !out[i].span || out[i].str != "" {
			t.Fatalf("chunk %d kept its text", i)
		}
	}
	avgText, nterms := float64(len(text))/chunks, float64(terms)/chunks
	// The fixed part is the indexedChunk (88 bytes: breadcrumb, offsets,
	// n, terms and vec headers). The terms and the codes are one
	// allocation per document each (packTerms, encodeVecs), so no chunk
	// pays a size class's rounding: 2 % over the formula fails the
	// test, as one array a chunk did (705 bytes against 688 here).
	fixed := float64(unsafe.Sizeof(indexedChunk{}))
	formula := fixed + 4*nterms + 2*dims
	t.Logf("%.0f bytes a chunk resident (text %.0f not kept, %.0f distinct terms, %d dims; formula %.0f + 4 x terms + 2 x dims = %.0f); vocabulary %d bytes for %d words (%.0f a word)",
		per, avgText, nterms, dims, fixed, formula, vocabBytes, len(x.vocab.ids), float64(vocabBytes)/float64(len(x.vocab.ids)))
	if per > formula*1.02 {
		t.Errorf("%.0f bytes a chunk, the formula allows %.0f", per, formula)
	}
}
