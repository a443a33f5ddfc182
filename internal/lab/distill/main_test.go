package main

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextd/contextd/internal/wordvec"
)

// fixture writes a small base table, its word list, encoder vectors of
// width enc (fixed seed) and a sample, and returns their paths.
func fixture(t *testing.T, enc int) (base *wordvec.Table, dir string) {
	dir = t.TempDir()
	words := []string{"the", "engine", "failed", "pump", "winter", "cold", "start", "car"}
	tab := &wordvec.Table{Dim: 3, Vocab: 100, SIFA: 1e-3, Words: words, Ranks: []uint32{0, 10, 20, 30, 40, 50, 60, 70}}
	r := rand.New(rand.NewPCG(1, 2))
	var vecs [][]float32
	var raw []byte
	for range words {
		vecs = append(vecs, []float32{float32(r.NormFloat64()), float32(r.NormFloat64()), float32(r.NormFloat64())})
		for k := 0; k < enc; k++ {
			raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(float32(r.NormFloat64()*float64(k+1))))
		}
	}
	data, err := wordvec.Encode(tab, vecs)
	if err != nil {
		t.Fatal(err)
	}
	if base, err = wordvec.Decode(data); err != nil {
		t.Fatal(err)
	}
	if err := writeWords(base, filepath.Join(dir, "words.json")); err != nil {
		t.Fatal(err)
	}
	sample := "the engine failed\nthe pump\ncold winter start\nthe car would not start\nengine pump winter\nunknown words only\n"
	for _, f := range []struct{ name, body string }{{"words.f32", string(raw)}, {"sample.txt", sample}} {
		if err := os.WriteFile(filepath.Join(dir, f.name), []byte(f.body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return base, dir
}

// TestBuildTableReproducible: the same inputs give the same bytes; the
// table keeps the base's words and ranks, has dim dimensions and a
// whitening, and embeds a text as the known words' vectors alone.
func TestBuildTableReproducible(t *testing.T) {
	base, dir := fixture(t, 8)
	p := func(n string) string { return filepath.Join(dir, n) }
	sum1, err := buildTable(base, p("words.json"), p("words.f32"), p("sample.txt"), p("a.wv"), 8, 4)
	if err != nil {
		t.Fatal(err)
	}
	sum2, err := buildTable(base, p("words.json"), p("words.f32"), p("sample.txt"), p("b.wv"), 8, 4)
	if err != nil || sum1 != sum2 {
		t.Fatalf("second run: %v, sha256 %s vs %s", err, sum2, sum1)
	}
	data, err := os.ReadFile(p("a.wv"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := wordvec.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if got.Dim != 4 || got.W == nil || len(got.Ranks) != len(base.Ranks) || got.Vocab != base.Vocab {
		t.Fatalf("table: dim %d, whitening %v, %d words, vocab %d", got.Dim, got.W != nil, len(got.Ranks), got.Vocab)
	}
	for i := range got.Ranks {
		if got.Word(i) != base.Word(i) || got.Ranks[i] != base.Ranks[i] {
			t.Fatalf("word %d: %q rank %d, want %q rank %d", i, got.Word(i), got.Ranks[i], base.Word(i), base.Ranks[i])
		}
	}
	a, b := make([]float32, 4), make([]float32, 4)
	got.EmbedKnown("engine pump", a)
	got.EmbedKnown("engine zzz pump qqq", b)
	for k := range a {
		if a[k] != b[k] || math.IsNaN(float64(a[k])) {
			t.Fatalf("unknown words changed the embedding: %v vs %v", a, b)
		}
	}
}

// TestBuildTableRejects: a word list that is not the base's, vectors of
// the wrong size or with a non-finite value are refused and nothing is
// written.
func TestBuildTableRejects(t *testing.T) {
	base, dir := fixture(t, 8)
	p := func(n string) string { return filepath.Join(dir, n) }
	raw, _ := os.ReadFile(p("words.f32"))
	var words []string
	b, _ := os.ReadFile(p("words.json"))
	_ = json.Unmarshal(b, &words)
	swapped := append([]string{words[1], words[0]}, words[2:]...)
	js, _ := json.Marshal(swapped)
	nan := append([]byte(nil), raw...)
	binary.LittleEndian.PutUint32(nan[40:], math.Float32bits(float32(math.NaN())))
	for name, f := range map[string]string{"swapped.json": string(js), "short.json": `["the"]`, "bad.json": `{`,
		"short.f32": string(raw[:len(raw)-4]), "nan.f32": string(nan)} {
		if err := os.WriteFile(p(name), []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ words, vecs, want string }{
		{"swapped.json", "words.f32", "word 0"},
		{"short.json", "words.f32", "has 1 words"},
		{"bad.json", "words.f32", "bad.json"},
		{"words.json", "short.f32", "bytes"},
		{"words.json", "nan.f32", "non-finite"},
		{"", "words.f32", "needs -words"},
	} {
		wp := c.words
		if wp != "" {
			wp = p(wp)
		}
		_, err := buildTable(base, wp, p(c.vecs), p("sample.txt"), p("out.wv"), 8, 4)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s + %s: err %v, want %q", c.words, c.vecs, err, c.want)
		}
		if _, err := os.Stat(p("out.wv")); err == nil {
			t.Fatalf("%s + %s: a table was written", c.words, c.vecs)
		}
	}
}
