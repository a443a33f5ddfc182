package knowledge

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/contextd/contextd/index/token"
)

// TestStemStreamOracle: the English stream read from the exact one
// (kwStream) counts every stem of every chunk as the stored English
// stream did (the oracle below is its former construction: each token
// not a stop word, stemmed, counted), for stems present, absent and
// unknown, and each lists exactly the stems a chunk holds.
func TestStemStreamOracle(t *testing.T) {
	words := strings.Fields(`run runs running runner ran connect connected connection connections
		the a of is was being alive live lives living fmt.Println Println printing print printed
		w1 w2 x9 généralement généraux cafés café studies studying study`)
	r := rand.New(rand.NewPCG(3, 9))
	v := newVocab()
	var chunks []indexedChunk
	var oracle []map[string]int
	for range 300 {
		var b strings.Builder
		for range 1 + r.IntN(40) {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteByte(' ')
		}
		c := v.indexChunk(Chunk{Text: b.String()}, nil)
		chunks = append(chunks, c)
		m := map[string]int{}
		token.Scan(b.String(), nil, func(_, _ int, term []byte) {
			if tm := string(term); !englishStop[tm] {
				if s := token.Stem(tm); s != "" {
					m[s]++
				}
			}
		})
		oracle = append(oracle, m)
	}
	stems := []string{"absent", "", "the"}
	for _, m := range oracle {
		for s := range m {
			if !slices.Contains(stems, s) {
				stems = append(stems, s)
			}
		}
	}
	ids := make([]uint32, len(stems))
	for i, s := range stems {
		ids[i] = v.lookup(s)
	}
	st := v.stemStream(ids)
	var seen map[uint32]bool
	for i := range chunks {
		for k, s := range stems {
			if got, want := st.count(&chunks[i], ids[k]), oracle[i][s]; got != want {
				t.Fatalf("chunk %d (%q), stem %q: count %d, want %d", i, chunks[i].str, s, got, want)
			}
		}
		var held []string
		seen = st.each(&chunks[i], seen, func(id uint32) {
			held = append(held, stems[slices.Index(ids, id)])
		})
		var want []string
		for s := range oracle[i] {
			want = append(want, s)
		}
		slices.Sort(held)
		slices.Sort(want)
		if !slices.Equal(held, want) {
			t.Fatalf("chunk %d: each lists %v, want %v", i, held, want)
		}
	}
	if fmt.Sprint(exactStream.count(&chunks[0], v.lookup("absent"))) != "0" {
		t.Fatal("an unknown term has a count")
	}
}

// TestIndexedTextsOwnTheirBytes: an indexed chunk cut out of its document
// does not keep the document's text alive: a span keeps no text (read
// again from the entry text, textIn), any other chunk a copy.
func TestIndexedTextsOwnTheirBytes(t *testing.T) {
	doc := strings.Repeat("heron lake ", 1000)
	x := newChunkIndex()
	out, _ := x.indexChunks(doc, []Chunk{
		{Text: doc[11:22], Start: 11, End: 22},           // a span
		{Text: "T\n\n" + doc[22:33], Start: 22, End: 33}, // a span under a breadcrumb
		{Text: doc[11:22], Start: 0, End: 3},             // not a span: its text is kept
	}, nil)
	if !out[0].span || out[0].str != "" || !out[1].span || out[1].str != "T" || out[2].span {
		t.Fatalf("spans %v %v %v, kept %q %q", out[0].span, out[1].span, out[2].span, out[0].str, out[1].str)
	}
	for i, want := range []string{"heron lake ", "T\n\nheron lake ", "heron lake "} {
		if got, ok := out[i].textIn(doc); !ok || got != want {
			t.Errorf("chunk %d: text %q, %v; want %q", i, got, ok, want)
		}
	}
	lo := uintptr(unsafe.Pointer(unsafe.StringData(doc)))
	p := uintptr(unsafe.Pointer(unsafe.StringData(out[2].str)))
	if p >= lo && p < lo+uintptr(len(doc)) {
		t.Fatalf("indexed text %q aliases the document", out[2].str)
	}
	if _, ok := out[0].textIn(doc[:15]); ok {
		t.Error("a span past the end of the text gave a text")
	}
}
