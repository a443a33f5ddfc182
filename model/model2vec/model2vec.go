// Package model2vec owns the Model2Vec static embedder: a model folder as
// model2vec's StaticModel.save_pretrained writes it (model.safetensors
// with the table "embeddings", tokenizer.json, config.json) turned into a
// model.Embedder. A sentence's vector is the mean of its tokens' rows, as
// model2vec computes it (StaticModel.encode):
//
//   - the text is cut to 512 x the median length of the vocabulary's
//     tokens (in characters), tokenized without special tokens (and cut
//     to tokenizer.json's truncation length, when it sets one), its
//     [UNK] tokens removed and the first 512 kept;
//   - each token's row is embeddings[id], or embeddings[mapping[id]]
//     scaled by weights[id] for a vocabulary-quantized model (the
//     optional tensors "mapping" and "weights");
//   - the vector is their mean (the zero vector for a text without
//     tokens), divided by its norm + 1e-32 when config.json sets
//     "normalize".
//
// A folder laid out by sentence-transformers (modules.json with a
// StaticEmbedding module, its table "embedding.weight", and optionally
// Normalize) is read too, with that library's arithmetic: every token
// averaged, [UNK] included, no cut, and a norm floor of 1e-12.
//
// The table may be F32, F16 (the published potion models), BF16 or int8;
// the mean is taken in float64, so an F16 model's vectors are the exact
// mean, where model2vec's own float16 arithmetic strays by up to about
// 1e-3. Only WordPiece tokenizers are supported (the BERT-derived models
// such as potion-base-8M); a folder with a Unigram or BPE tokenizer is
// refused with cerrors.ErrUnsupported.
//
// Cost: a table lookup per token, no matrix product: about as cheap as
// the built-in embedder, with the quality of a distilled sentence model.
//
//	e, err := model2vec.Load("/models/potion-base-8M", model2vec.Options{})
//	vecs, err := e.Embed(ctx, []string{"car engine failure in winter"})
package model2vec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/model"
	"github.com/contextd/contextd/model/safetensors"
	"github.com/contextd/contextd/model/wordpiece"
)

// MaxTokens is StaticModel.encode's default max_length: the tokens of a
// text beyond it are ignored.
const MaxTokens = 512

// Options configure Load; the zero value takes the folder's settings.
type Options struct {
	// Name is what Model reports, recorded beside the stored vectors
	// (default: the folder's base name).
	Name string
	// Normalize overrides config.json's "normalize" when not nil.
	Normalize *bool
}

// Embedder is a loaded Model2Vec model; safe for concurrent use.
type Embedder struct {
	name      string
	tok       *wordpiece.Tokenizer
	table     []float32 // rows x dim
	dim       int
	mapping   []int     // token id -> row, nil when ids index the table
	weights   []float32 // per token id, nil when unweighted
	normalize bool
	maxChars  int // MaxTokens x the median token length
	// st: sentence-transformers' StaticEmbedding arithmetic (stVector).
	st bool
}

var _ model.Embedder = (*Embedder)(nil)

// folderError is a folder that cannot be used: the file, the problem and
// what to do, wrapping a sentinel.
func folderError(kind error, file, problem, fix string) error {
	return fmt.Errorf("%s: %s; %s: %w", file, problem, fix, kind)
}

const fetchFix = "download the whole model folder once on a networked machine (e.g. `huggingface-cli download minishlab/potion-base-8M --local-dir potion-base-8M`) and point the setting at it"

// IsModel2Vec reports whether dir holds a static embedding model Load
// reads: its config.json says model_type "model2vec" or architecture
// StaticModel, or its modules.json starts with a StaticEmbedding module.
func IsModel2Vec(dir string) bool {
	if cfg, err := readConfig(filepath.Join(dir, "config.json")); err == nil && cfg.isModel2Vec() {
		return true
	}
	_, ok, _ := readModules(dir)
	return ok
}

// readConfig reads config.json; its errors name the file and the fix.
func readConfig(path string) (config, error) {
	var cfg config
	b, err := os.ReadFile(path)
	if err != nil {
		return cfg, folderError(cerrors.ErrMalformed, path, "cannot be read ("+errText(err)+")", fetchFix)
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		return cfg, folderError(cerrors.ErrMalformed, path, "is not valid JSON ("+err.Error()+")", "download the file again")
	}
	return cfg, nil
}

// stModel is what modules.json says of a sentence-transformers static
// model: the StaticEmbedding module's folder and whether a Normalize
// module follows.
type stModel struct {
	path      string
	normalize bool
}

// readModules reads dir/modules.json: ok when its first module is a
// StaticEmbedding (so the folder is a static model, and an error says
// why it cannot be used: a module other than Normalize follows, or the
// module's path leaves the folder).
func readModules(dir string) (stModel, bool, error) {
	p := filepath.Join(dir, "modules.json")
	b, err := os.ReadFile(p)
	if err != nil {
		return stModel{}, false, nil
	}
	var mods []struct {
		Path string `json:"path"`
		Type string `json:"type"`
	}
	if json.Unmarshal(b, &mods) != nil || len(mods) == 0 || !strings.HasSuffix(mods[0].Type, ".StaticEmbedding") {
		return stModel{}, false, nil
	}
	st := stModel{path: mods[0].Path}
	if !filepath.IsLocal(filepath.FromSlash(st.path)) {
		return st, true, folderError(cerrors.ErrMalformed, p, fmt.Sprintf("the StaticEmbedding module's path %q leaves the folder", st.path), "download the file again")
	}
	for _, m := range mods[1:] {
		if !strings.HasSuffix(m.Type, ".Normalize") {
			return st, true, folderError(cerrors.ErrUnsupported, p, fmt.Sprintf("module %s after StaticEmbedding is not supported (Normalize is)", m.Type), "choose a model whose pipeline is StaticEmbedding, optionally Normalize")
		}
		st.normalize = true
	}
	return st, true, nil
}

type config struct {
	ModelType     string   `json:"model_type"`
	Architectures []string `json:"architectures"`
	Normalize     *bool    `json:"normalize"`
}

func (c config) isModel2Vec() bool {
	return strings.EqualFold(c.ModelType, "model2vec") || slices.Contains(c.Architectures, "StaticModel")
}

// Load reads the static model in dir: a Model2Vec folder (config.json
// with model_type "model2vec"), or a sentence-transformers one whose
// modules.json starts with a StaticEmbedding module (the
// static-embedding models of sentence-transformers, which differ in
// their arithmetic: see stVector). Errors name the file at fault and
// what to do, and wrap cerrors.ErrMalformed (a file is missing or
// damaged) or cerrors.ErrUnsupported (not a static model, or a tokenizer
// other than WordPiece).
func Load(dir string, opt Options) (*Embedder, error) {
	e := &Embedder{name: opt.Name}
	if e.name == "" {
		e.name = filepath.Base(filepath.Clean(dir))
	}
	cp := filepath.Join(dir, "config.json")
	cfg, cfgErr := readConfig(cp)
	files := dir
	if cfgErr == nil && cfg.isModel2Vec() {
		e.normalize = cfg.Normalize != nil && *cfg.Normalize
	} else {
		st, ok, err := readModules(dir)
		switch {
		case err != nil:
			return nil, err
		case !ok && cfgErr != nil:
			return nil, cfgErr
		case !ok:
			return nil, folderError(cerrors.ErrUnsupported, cp, fmt.Sprintf("model_type %q is not a static embedding model", cfg.ModelType),
				"point the setting at a folder saved by model2vec (config.json with model_type \"model2vec\") or a sentence-transformers StaticEmbedding model")
		}
		e.st, e.normalize = true, st.normalize
		files = filepath.Join(dir, st.path)
	}
	if opt.Normalize != nil {
		e.normalize = *opt.Normalize
	}

	tp := filepath.Join(files, "tokenizer.json")
	tb, err := os.ReadFile(tp)
	if err != nil {
		return nil, folderError(cerrors.ErrMalformed, tp, "cannot be read ("+errText(err)+")", fetchFix)
	}
	if e.tok, err = wordpiece.FromTokenizerJSON(tb); err != nil {
		fix := "download the file again"
		if errors.Is(err, cerrors.ErrUnsupported) {
			fix = "choose a Model2Vec model with a WordPiece (BERT) tokenizer, such as minishlab/potion-base-8M"
			return nil, folderError(cerrors.ErrUnsupported, tp, err.Error(), fix)
		}
		return nil, folderError(cerrors.ErrMalformed, tp, err.Error(), fix)
	}
	e.maxChars = MaxTokens * medianTokenLength(e.tok)

	if err := e.loadTables(filepath.Join(files, "model.safetensors")); err != nil {
		return nil, err
	}
	return e, nil
}

// errText is an I/O error's message without the path Go repeats.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// medianTokenLength is model2vec's median_token_length: the integer part
// of the median of the vocabulary's token lengths in characters (of the
// two middle ones when the count is even).
func medianTokenLength(tok *wordpiece.Tokenizer) int {
	var lens []int
	tok.EachToken(func(s string, _ int) { lens = append(lens, utf8.RuneCountInString(s)) })
	if len(lens) == 0 {
		return 1
	}
	slices.Sort(lens)
	n := len(lens)
	if n%2 == 1 {
		return lens[n/2]
	}
	return (lens[n/2-1] + lens[n/2]) / 2
}

// loadTables reads the embedding table and, for a vocabulary-quantized
// model, the token mapping and weights, and checks they cover every id
// the tokenizer can return.
func (e *Embedder) loadTables(path string) error {
	f, err := safetensors.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return folderError(cerrors.ErrMalformed, path, "missing", fetchFix)
		}
		return folderError(cerrors.ErrMalformed, path, err.Error(), "download the file again")
	}
	defer f.Close()
	name := "embeddings"
	if _, ok := f.Info(name); !ok {
		name = "embedding.weight" // the sentence-transformers StaticEmbedding layout
	}
	t, err := f.Tensor(name)
	if err != nil {
		return folderError(cerrors.ErrMalformed, path, "has no usable tensor \"embeddings\" ("+err.Error()+")", "download the file again")
	}
	if len(t.Shape) != 2 || t.Shape[0] == 0 || t.Shape[1] == 0 {
		return folderError(cerrors.ErrMalformed, path, fmt.Sprintf("tensor %q has shape %v, not [tokens, dimensions]", name, t.Shape), "download the file again")
	}
	rows, vocab := t.Shape[0], e.tok.VocabSize()
	e.table, e.dim = t.Data, t.Shape[1]

	if _, ok := f.Info("mapping"); ok {
		m, err := f.Tensor("mapping")
		if err != nil || len(m.Shape) != 1 || m.Shape[0] < vocab {
			return folderError(cerrors.ErrMalformed, path, fmt.Sprintf("tensor \"mapping\" must list a row for each of the tokenizer's %d ids", vocab), "download the file again")
		}
		e.mapping = make([]int, len(m.Data))
		for i, x := range m.Data {
			if x < 0 || int(x) >= rows || float32(int(x)) != x {
				return folderError(cerrors.ErrMalformed, path, fmt.Sprintf("tensor \"mapping\" sends token %d to row %g of %d", i, x, rows), "download the file again")
			}
			e.mapping[i] = int(x)
		}
	} else if rows < vocab {
		return folderError(cerrors.ErrMalformed, path, fmt.Sprintf("tensor %q has %d rows, but the tokenizer has %d ids", name, rows, vocab),
			"tokenizer.json and model.safetensors are of different models; download the folder again")
	}
	if _, ok := f.Info("weights"); ok {
		w, err := f.Tensor("weights")
		if err != nil || len(w.Shape) != 1 || w.Shape[0] < vocab {
			return folderError(cerrors.ErrMalformed, path, fmt.Sprintf("tensor \"weights\" must hold a weight for each of the tokenizer's %d ids", vocab), "download the file again")
		}
		e.weights = w.Data
	}
	return nil
}

// Dim is the width of the embedding table.
func (e *Embedder) Dim() int { return e.dim }

// Model is Options.Name or the folder's base name.
func (e *Embedder) Model() string { return e.name }

// Embed returns one vector per text (see the package comment).
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	flat := make([]float32, len(texts)*e.dim)
	acc := make([]float64, e.dim)
	for i, s := range texts {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		v := flat[i*e.dim : (i+1)*e.dim : (i+1)*e.dim]
		e.embedOne(s, acc, v)
		out[i] = v
	}
	return out, nil
}

// embedOne writes the vector of s into v; acc is scratch of Dim floats.
//
// stVector: a sentence-transformers StaticEmbedding model averages every
// token (an EmbeddingBag in mean mode): no cut of the text, [UNK] kept,
// no 512-token bound beyond the tokenizer's own truncation; its
// Normalize module divides by max(norm, 1e-12).
func (e *Embedder) embedOne(s string, acc []float64, v []float32) {
	if !e.st {
		s = cutRunes(s, e.maxChars)
	}
	clear(acc)
	n := 0
	unk := e.tok.UnkID()
	ids := e.tok.IDs(s)
	if m := e.tok.MaxLen(); m > 0 && len(ids) > m {
		// tokenizer.json's own truncation comes first, [UNK]s included,
		// as the library applies it inside encode.
		ids = ids[:m]
	}
	for _, id := range ids {
		if !e.st && id == unk {
			continue
		}
		if !e.st && n == MaxTokens {
			break
		}
		n++
		row, w := id, 1.0
		if e.mapping != nil {
			row = e.mapping[id]
		}
		if e.weights != nil {
			w = float64(e.weights[id])
		}
		r := e.table[row*e.dim : (row+1)*e.dim]
		for j, x := range r {
			acc[j] += w * float64(x)
		}
	}
	if n == 0 {
		clear(v)
		return
	}
	var norm float64
	for j := range acc {
		acc[j] /= float64(n)
		norm += acc[j] * acc[j]
	}
	scale := 1.0
	switch {
	case e.normalize && e.st:
		scale = 1 / max(math.Sqrt(norm), 1e-12)
	case e.normalize:
		scale = 1 / (math.Sqrt(norm) + 1e-32)
	}
	for j := range acc {
		v[j] = float32(acc[j] * scale)
	}
}

// cutRunes keeps the first n characters of s (Python's s[:n]).
func cutRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}
