// Command embedlab is the Go half of the embedder lab (scripts/embedlab):
// it measures candidate embedders side by side, in one harness, with
// exact cosine ranking over all documents, on Cranfield (nDCG@10 as
// `contextd eval cranfield` computes it: gain 5 − grade, odd query
// numbers for choosing, even ones for reporting) and on the paraphrase
// set (rank of each pair's entry among the 450 distractors and the 60
// entries; odd pair ids are the development split). It is a tool for
// people, never run by CI, the test script or the engine.
//
//	go run ./internal/lab/embedlab export -dir /tmp/lab
//	node scripts/embedlab/use.mjs /tmp/lab/texts.json /tmp/lab/texts.f32 1
//	node scripts/embedlab/use.mjs /tmp/lab/words.json /tmp/lab/words.f32 256
//	go run ./internal/lab/embedlab eval -dir /tmp/lab
//
// export writes the texts (texts.json: Cranfield documents, Cranfield
// queries, distractors, entries, paraphrase queries, in that order) and
// the built-in table's most frequent words (words.json); eval reads the
// Universal Sentence Encoder lite vectors the Node script wrote for both
// and prints one table row per variant: the built-in embedder, the full
// encoder, static distillations of it (each word alone through the
// encoder, Model2Vec-style: PCA, SIF weights, optional whitening) and
// blends of the built-in sentence vector with a distilled one.
//
//	go run ./internal/lab/embedlab retrofit -wordnet /usr/share/wordnet
//
// retrofit needs no encoder: it moves the built-in table's word vectors
// towards their WordNet 3.0 neighbours (Debian wordnet-base; Faruqui et
// al. 2015), re-estimates the whitening and prints the same rows.
package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/contextd/contextd/internal/lab/cranfield"
	"github.com/contextd/contextd/internal/lab/paraphrase"
	"github.com/contextd/contextd/internal/wordvec"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: embedlab export|eval [flags]")
		os.Exit(2)
	}
	fs := flag.NewFlagSet("embedlab "+os.Args[1], flag.ExitOnError)
	dir := fs.String("dir", "/tmp/embedlab", "folder of the lab's files")
	cran := fs.String("cranfield", "testdata/cranfield", "Cranfield collection folder")
	para := fs.String("paraphrase", "testdata/paraphrase", "paraphrase set folder")
	table := fs.String("table", "model/builtin/embeddata/glove-wink-100k.wv", "the built-in word-vector table")
	words := fs.Int("words", 100000, "export: how many of the table's most frequent words")
	only := fs.String("only", "", "eval: run the variants whose name contains this")
	wnDir := fs.String("wordnet", "/usr/share/wordnet", "retrofit: WordNet 3.0 data files (Debian wordnet-base)")
	_ = fs.Parse(os.Args[2:])
	c, err := loadCorpus(*cran, *para)
	if err == nil {
		switch os.Args[1] {
		case "export":
			err = export(c, *dir, *table, *words)
		case "eval":
			err = evalAll(context.Background(), c, *dir, *table, *only)
		case "retrofit":
			err = evalRetrofit(c, *table, *wnDir)
		default:
			err = fmt.Errorf("unknown command %q", os.Args[1])
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "embedlab:", err)
		os.Exit(1)
	}
}

// corpus is both collections as one list of texts, with where each part
// starts.
type corpus struct {
	texts                        []string
	cranQueries                  int // offset of the queries in texts (the documents start at 0)
	cranQrels                    map[int]map[int]int
	docNums                      []int // Cranfield document numbers, as the qrels use them
	nDocs, nQueries              int
	paraDocs, paraQueries, nPara int   // distractors then entries; queries
	paraTarget                   []int // per pair, its entry's index among the para docs
	pairs                        []paraphrase.Pair
}

func loadCorpus(cranDir, paraDir string) (*corpus, error) {
	col, err := cranfield.Load(cranDir)
	if err != nil {
		return nil, err
	}
	set, err := paraphrase.Load(paraDir)
	if err != nil {
		return nil, err
	}
	c := &corpus{cranQrels: col.Qrels, nDocs: len(col.Docs), nQueries: len(col.Queries), pairs: set.Pairs}
	for _, d := range col.Docs {
		c.texts = append(c.texts, d.Text)
		c.docNums = append(c.docNums, d.Num)
	}
	c.cranQueries = len(c.texts)
	c.texts = append(c.texts, col.Queries...)
	c.paraDocs = len(c.texts)
	c.texts = append(c.texts, set.Distractors...)
	for i, p := range set.Pairs {
		c.paraTarget = append(c.paraTarget, len(set.Distractors)+i)
		c.texts = append(c.texts, p.Entry)
	}
	c.paraQueries = len(c.texts)
	for _, p := range set.Pairs {
		c.texts = append(c.texts, p.Query)
	}
	c.nPara = len(set.Distractors) + len(set.Pairs)
	return c, nil
}

func export(c *corpus, dir, tablePath string, n int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := writeJSON(filepath.Join(dir, "texts.json"), c.texts); err != nil {
		return err
	}
	t, err := loadTable(tablePath)
	if err != nil {
		return err
	}
	words := make([]string, 0, n)
	for i := 0; i < len(t.Ranks) && i < n; i++ {
		words = append(words, t.Word(i))
	}
	fmt.Printf("wrote %d texts and %d words to %s\n", len(c.texts), len(words), dir)
	return writeJSON(filepath.Join(dir, "words.json"), words)
}

func writeJSON(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// readF32 reads rows of dim little-endian float32.
func readF32(path string, rows, dim int) ([][]float32, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(b) != rows*dim*4 {
		return nil, fmt.Errorf("%s: %d bytes, want %d rows of %d", path, len(b), rows, dim)
	}
	out := make([][]float32, rows)
	flat := make([]float32, rows*dim)
	for i := range flat {
		flat[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	for i := range out {
		out[i] = flat[i*dim : (i+1)*dim : (i+1)*dim]
	}
	return out, nil
}

func loadTable(path string) (*wordvec.Table, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return wordvec.Decode(b)
}
