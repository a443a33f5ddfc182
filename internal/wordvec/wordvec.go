// Package wordvec owns the word-vector table behind the built-in embedder:
// its binary format, the tokenizer, and the sentence embedding (smooth
// inverse frequency weighting and common-component removal, Arora, Liang
// & Ma, "A Simple but Tough-to-Beat Baseline for Sentence Embeddings",
// ICLR 2017). The generator (internal/lab/wordvecgen) writes tables;
// package builtin reads the vendored one, and the embedder lab
// (internal/lab/embedlab, internal/lab/distill) reads and writes variants.
// It is internal so the format can change with all of them; it imports
// nothing of the module, so the model layer may use it.
//
//	t, _ := wordvec.Decode(data)
//	v := make([]float32, t.Dim)
//	t.Embed("the car would not start", v)
package wordvec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// Format, little-endian:
//
//	magic "CXWV", version u32, dim u32, n u32, vocab u32 (size of the
//	source vocabulary, for the Zipf estimate), sifA f32, pc [dim]f32,
//	version 2 only: whitening mean [dim]f32 and W [dim·dim]f32 (see
//	whiten.go), then per word in rank order: rank uvarint, len uvarint,
//	bytes, scale f32, dim int8 codes (value = scale · code). A table
//	with whitening is written as version 2, one without as version 1.
const (
	magic = "CXWV"
)

// ErrFormat wraps every decoding error.
var ErrFormat = errors.New("bad word-vector table")

// Table is a decoded word-vector table. Codes are kept as int8 (scale ·
// code) so the table costs what the file costs.
type Table struct {
	Dim   int
	Vocab int       // words in the source vocabulary (ranks are < Vocab)
	SIFA  float32   // the SIF parameter a
	PC    []float32 // common component (unit length), or all zero
	// Mean0 and W are the whitening (whiten.go); nil: the common
	// component is removed instead.
	Mean0 []float32
	W     []float32
	Words []string // Encode's input; a decoded table answers Word
	Ranks []uint32

	scale   []float32
	codes   []byte // n × Dim, int8 as bytes
	vocab   *vocab
	weights []float32 // SIF weight per word
	oovNorm float32
	oovW    float32
}

// Encode writes t. PC may be nil (zeros).
func Encode(t *Table, vecs [][]float32) ([]byte, error) {
	if t.Dim < 1 || len(t.Words) != len(vecs) || len(t.Ranks) != len(vecs) {
		return nil, fmt.Errorf("%w: inconsistent table", ErrFormat)
	}
	out := []byte(magic)
	version := uint32(1)
	if t.W != nil {
		if len(t.W) != t.Dim*t.Dim || len(t.Mean0) != t.Dim {
			return nil, fmt.Errorf("%w: whitening of the wrong size", ErrFormat)
		}
		version = 2
	}
	out = binary.LittleEndian.AppendUint32(out, version)
	out = binary.LittleEndian.AppendUint32(out, uint32(t.Dim))
	out = binary.LittleEndian.AppendUint32(out, uint32(len(vecs)))
	out = binary.LittleEndian.AppendUint32(out, uint32(t.Vocab))
	out = binary.LittleEndian.AppendUint32(out, math.Float32bits(t.SIFA))
	for i := 0; i < t.Dim; i++ {
		var x float32
		if t.PC != nil {
			x = t.PC[i]
		}
		out = binary.LittleEndian.AppendUint32(out, math.Float32bits(x))
	}
	if version == 2 {
		for _, x := range append(append([]float32(nil), t.Mean0...), t.W...) {
			out = binary.LittleEndian.AppendUint32(out, math.Float32bits(x))
		}
	}
	for i, v := range vecs {
		if len(v) != t.Dim {
			return nil, fmt.Errorf("%w: word %q has %d dims", ErrFormat, t.Words[i], len(v))
		}
		out = binary.AppendUvarint(out, uint64(t.Ranks[i]))
		out = binary.AppendUvarint(out, uint64(len(t.Words[i])))
		out = append(out, t.Words[i]...)
		scale, codes := Quantize(v)
		out = binary.LittleEndian.AppendUint32(out, math.Float32bits(scale))
		for _, c := range codes {
			out = append(out, byte(c))
		}
	}
	return out, nil
}

// Quantize maps v to int8 codes with one scale (max |x| / 127).
func Quantize(v []float32) (float32, []int8) {
	var m float32
	for _, x := range v {
		m = max(m, float32(math.Abs(float64(x))))
	}
	codes := make([]int8, len(v))
	if m == 0 {
		return 0, codes
	}
	scale := m / 127
	for i, x := range v {
		codes[i] = int8(math.Round(float64(x / scale)))
	}
	return scale, codes
}

// Decode parses a table. data is referenced, not copied.
func Decode(data []byte) (*Table, error) {
	bad := func(what string) (*Table, error) { return nil, fmt.Errorf("%w: %s", ErrFormat, what) }
	if len(data) < 24 || string(data[:4]) != magic {
		return bad("magic")
	}
	version := binary.LittleEndian.Uint32(data[4:])
	if version != 1 && version != 2 {
		return bad(fmt.Sprintf("version %d", version))
	}
	t := &Table{
		Dim:   int(binary.LittleEndian.Uint32(data[8:])),
		Vocab: int(binary.LittleEndian.Uint32(data[16:])),
		SIFA:  math.Float32frombits(binary.LittleEndian.Uint32(data[20:])),
	}
	n := int(binary.LittleEndian.Uint32(data[12:]))
	if t.Dim < 1 || t.Dim > 4096 || n < 1 || n > len(data)/(t.Dim+6) || t.Vocab < n || t.Vocab > 1<<24 || !(t.SIFA > 0) {
		return bad("header")
	}
	p := 24
	if len(data) < p+4*t.Dim {
		return bad("truncated")
	}
	t.PC = make([]float32, t.Dim)
	for i := range t.PC {
		t.PC[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[p:]))
		p += 4
	}
	if version == 2 {
		if len(data)-p < 4*(t.Dim+t.Dim*t.Dim) {
			return bad("truncated whitening")
		}
		ws := make([]float32, t.Dim+t.Dim*t.Dim)
		for i := range ws {
			f := math.Float32frombits(binary.LittleEndian.Uint32(data[p:]))
			if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
				return bad("whitening value")
			}
			ws[i] = f
			p += 4
		}
		t.Mean0, t.W = ws[:t.Dim:t.Dim], ws[t.Dim:]
	}
	t.Ranks = make([]uint32, 0, n)
	t.scale = make([]float32, 0, n)
	t.codes = make([]byte, 0, n*t.Dim)
	var words *strings.Builder
	t.vocab, words = newVocab(n, max(0, len(data)-p-n*(t.Dim+6))) // about the words' bytes
	for i := 0; i < n; i++ {
		rank, k := binary.Uvarint(data[p:])
		if k <= 0 || rank >= uint64(t.Vocab) {
			return bad("rank")
		}
		p += k
		l, k := binary.Uvarint(data[p:])
		if k <= 0 || l > 256 || uint64(len(data)-p-k) < l+4+uint64(t.Dim) {
			return bad("word")
		}
		p += k
		w := data[p : p+int(l)]
		p += int(l)
		if !t.vocab.add(words, string(w)) {
			return bad("duplicate word " + string(w))
		}
		t.Ranks = append(t.Ranks, uint32(rank))
		t.scale = append(t.scale, math.Float32frombits(binary.LittleEndian.Uint32(data[p:])))
		p += 4
		t.codes = append(t.codes, data[p:p+t.Dim]...)
		p += t.Dim
	}
	if p != len(data) {
		return bad("trailing bytes")
	}
	t.prepare()
	return t, nil
}

// prepare derives the SIF weights and the out-of-vocabulary settings.
//
// The package lists words by corpus frequency but carries no counts, so
// p(w) comes from Zipf's law on the rank: p(r) = 1 / ((r+1) · H_V) with
// H_V the harmonic number of the vocabulary size. SIF weight = a/(a+p(w)).
func (t *Table) prepare() {
	var h float64
	for r := 1; r <= t.Vocab; r++ {
		h += 1 / float64(r)
	}
	a := float64(t.SIFA)
	t.weights = make([]float32, len(t.Ranks))
	var norms float64
	for i, r := range t.Ranks {
		p := 1 / (float64(r+1) * h)
		t.weights[i] = float32(a / (a + p))
		norms += float64(t.scale[i]) * math.Sqrt(float64(t.codeDot(i, i)))
	}
	t.oovNorm = float32(norms / float64(len(t.Ranks)))
	// An unknown token (an identifier, a name, a typo) still counts: it
	// gets a pseudo-random direction from its hash, at half the weight of
	// the rarest known word, so identical unknown tokens match each other
	// without drowning the known words.
	p := 1 / (float64(t.Vocab) * h)
	t.oovW = float32(0.5 * a / (a + p))
}

func (t *Table) codeDot(i, j int) int32 {
	a := t.codes[i*t.Dim : (i+1)*t.Dim]
	b := t.codes[j*t.Dim : (j+1)*t.Dim]
	var s int32
	for k := range a {
		s += int32(int8(a[k])) * int32(int8(b[k]))
	}
	return s
}

// Lookup returns the index of word, or -1.
func (t *Table) Lookup(word string) int {
	return find(t.vocab, word)
}

// Word is word i of a decoded table.
func (t *Table) Word(i int) string { return t.vocab.word(i) }

// Vector writes word i's vector (dequantised, length Dim) to out; the
// generator of a derived table reads the source table's vectors this way.
func (t *Table) Vector(i int, out []float32) {
	c := t.codes[i*t.Dim : (i+1)*t.Dim]
	for k := range out {
		out[k] = t.scale[i] * float32(int8(c[k]))
	}
}

// Weight is the SIF weight of word i.
func (t *Table) Weight(i int) float32 { return t.weights[i] }

// Mean adds the SIF-weighted mean of text's token vectors to out (which
// must be zeroed, length Dim) and returns how many tokens it used.
func (t *Table) Mean(text string, out []float32) int { return t.mean(text, out, true) }

// MeanKnown is Mean over the known words only: an unknown token adds
// nothing (a distilled table's space has no room for hashed directions:
// whitening would blow them up along its weakest axes). It returns how
// many tokens the text has, known or not.
func (t *Table) MeanKnown(text string, out []float32) int { return t.mean(text, out, false) }

func (t *Table) mean(text string, out []float32, hashOOV bool) int {
	return t.meanPair(text, out, hashOOV, nil, nil)
}

// meanPair is mean, also adding the vectors of u (a table of the same
// words in the same order, see SameWords), known words only, to outU:
// one scan and one lookup serve both tables.
func (t *Table) meanPair(text string, out []float32, hashOOV bool, u *Table, outU []float32) int {
	n := 0
	var oov oovRand
	scan(text, make([]byte, 0, 32), func(tok []byte) {
		n++
		if i := find(t.vocab, tok); i >= 0 { // no allocation for the lookup
			t.addWord(int(i), out)
			if u != nil {
				u.addWord(int(i), outU)
			}
			return
		}
		if hashOOV {
			t.addOOV(tok, out, &oov)
		}
	})
	if n > 0 {
		inv := 1 / float32(n)
		for k := range out {
			out[k] *= inv
		}
		for k := range outU {
			outU[k] *= inv
		}
	}
	return n
}

// addWord adds word i's SIF-weighted vector to out.
func (t *Table) addWord(i int, out []float32) {
	w := t.weights[i] * t.scale[i]
	c := t.codes[i*t.Dim : (i+1)*t.Dim]
	for k := range out {
		out[k] += w * float32(int8(c[k]))
	}
}

// oovRand is the generator of one Mean call, made on its first unknown
// token and re-seeded for each: one allocation a text, not two a token.
type oovRand struct {
	pcg *rand.PCG
	r   *rand.Rand
}

func (t *Table) addOOV(tok []byte, out []float32, g *oovRand) {
	// FNV-1a 64 inline: hash/fnv's interface value would allocate per token.
	h := uint64(14695981039346656037)
	for _, c := range tok {
		h ^= uint64(c)
		h *= 1099511628211
	}
	if g.pcg == nil {
		g.pcg = rand.NewPCG(0, 0)
		g.r = rand.New(g.pcg)
	}
	g.pcg.Seed(h, 0x5eed)
	// A Gaussian vector of dim components has norm ≈ √dim.
	w := t.oovW * t.oovNorm / float32(math.Sqrt(float64(t.Dim)))
	for k := range out {
		out[k] += w * float32(g.r.NormFloat64())
	}
}

// Embed writes the sentence embedding of text to out (length Dim): the
// SIF-weighted mean, normalised and whitened when the table has a
// whitening, else minus its projection on the common component; L2
// normalised. A text without tokens embeds to the zero vector.
func (t *Table) Embed(text string, out []float32) { t.embed(text, out, true) }

// EmbedKnown is Embed over the known words only (see MeanKnown); a text
// without a known word embeds to the zero vector. The blend reranker's
// distilled table is read this way, as the lab measured it.
func (t *Table) EmbedKnown(text string, out []float32) { t.embed(text, out, false) }

func (t *Table) embed(text string, out []float32, hashOOV bool) {
	clear(out)
	t.finish(out, t.mean(text, out, hashOOV), hashOOV)
}

// EmbedPair writes t.Embed(text) to out and u.EmbedKnown(text) to outU
// with one scan of the text and one lookup a token. u must have t's words
// in t's order (SameWords); the blend reranker embeds every passage with
// the built-in and the distilled table this way (the second table then
// costs its sums and its whitening, not a second scan and lookup).
func (t *Table) EmbedPair(u *Table, text string, out, outU []float32) {
	clear(out)
	clear(outU)
	n := t.meanPair(text, out, true, u, outU)
	t.finish(out, n, true)
	u.finish(outU, n, false)
}

// SameWords reports whether u has t's words in t's order (so a lookup in
// t indexes u).
func (t *Table) SameWords(u *Table) bool {
	if len(t.Ranks) != len(u.Ranks) {
		return false
	}
	for i := range t.Ranks {
		if t.Ranks[i] != u.Ranks[i] || t.vocab.word(i) != u.vocab.word(i) {
			return false
		}
	}
	return true
}

// finish turns the mean of n tokens in out into the embedding.
func (t *Table) finish(out []float32, n int, hashOOV bool) {
	if n == 0 || !hashOOV && isZero(out) {
		return
	}
	if t.W != nil {
		Normalize(out)
		t.applyWhitening(out)
		return
	}
	RemoveComponent(out, t.PC)
	Normalize(out)
}

// RemoveComponent subtracts v's projection on the unit vector u.
func RemoveComponent(v, u []float32) {
	var d float32
	for k := range v {
		d += v[k] * u[k]
	}
	for k := range v {
		v[k] -= d * u[k]
	}
}

// Normalize scales v to unit length; a zero vector stays zero.
func Normalize(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(s))
	for k := range v {
		v[k] *= inv
	}
}

func isZero(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}
