package local

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/contextd/contextd/internal/wordvec"
	"github.com/contextd/contextd/model/wordpiece"
)

// Pooling modes of sentence-transformers' Pooling module.
const (
	PoolMean = "mean"
	PoolCLS  = "cls"
	PoolMax  = "max"
	// PoolMeanSqrt is the sum divided by the square root of the length.
	PoolMeanSqrt = "mean_sqrt_len"
)

// maxBatchTokens bounds the tokens one forward pass stacks: a batch of
// texts is cut into passes of at most this many tokens, so the
// activations of a large call stay a few MB (MiniLM: 8192 tokens x 1536
// intermediate floats = 48 MB at the widest point).
const maxBatchTokens = 8192

// Options configure Load. The zero value of each field takes the
// folder's own setting.
type Options struct {
	// Name is the model name Model reports, recorded in the database
	// beside the vectors (default: the folder's base name).
	Name string
	// QueryPrefix and PassagePrefix are prepended to queries and stored
	// texts (e5: "query: " and "passage: "; bge's query instruction).
	// Nil takes the "query" and "passage"/"document" prompts of the
	// folder's config_sentence_transformers.json, when it has them.
	QueryPrefix, PassagePrefix *string
}

// Embedder is a sentence-embedding model loaded from a folder laid out as
// sentence-transformers saves it. It is safe for concurrent use.
type Embedder struct {
	enc           *Encoder
	tok           *wordpiece.Tokenizer
	name          string
	pooling       string
	normalize     bool
	queryPrefix   string
	passagePrefix string
}

// module is one entry of modules.json.
type module struct {
	Path string `json:"path"`
	Type string `json:"type"`
}

// poolingConfig is 1_Pooling/config.json.
type poolingConfig struct {
	Dim      int  `json:"word_embedding_dimension"`
	CLS      bool `json:"pooling_mode_cls_token"`
	Mean     bool `json:"pooling_mode_mean_tokens"`
	Max      bool `json:"pooling_mode_max_tokens"`
	MeanSqrt bool `json:"pooling_mode_mean_sqrt_len_tokens"`
	Weighted bool `json:"pooling_mode_weightedmean_tokens"`
	Last     bool `json:"pooling_mode_lasttoken"`
}

// Load reads a sentence-embedding model from dir: config.json and
// model.safetensors (a BERT-family encoder), tokenizer.json or vocab.txt,
// and the pipeline of modules.json (Transformer, Pooling with
// 1_Pooling/config.json, optionally Normalize), with the token limit of
// sentence_bert_config.json. A folder without modules.json is a bare
// Hugging Face encoder, pooled by the mean without normalisation, as
// sentence-transformers treats one. Errors are *FolderError values
// naming the file and the fix.
func Load(dir string, opt Options) (*Embedder, error) {
	e := &Embedder{name: opt.Name, pooling: PoolMean}
	if e.name == "" {
		e.name = filepath.Base(filepath.Clean(dir))
	}
	var mods []module
	has, err := readJSON(dir, "modules.json", &mods, true)
	if err != nil {
		return nil, err
	}
	modsPath := filepath.Join(dir, "modules.json")
	if has {
		for _, m := range mods {
			switch m.Type {
			case "sentence_transformers.models.Transformer":
				if m.Path != "" {
					return nil, unsupported(modsPath, "the Transformer module lives in "+m.Path+", not in the folder itself", "point the setting at "+filepath.Join(dir, m.Path)+" if it holds a complete model")
				}
			case "sentence_transformers.models.Pooling":
				var pc poolingConfig
				if _, err := readJSON(dir, filepath.Join(m.Path, "config.json"), &pc, false); err != nil {
					return nil, err
				}
				if e.pooling, err = poolingMode(pc, filepath.Join(dir, m.Path, "config.json")); err != nil {
					return nil, err
				}
			case "sentence_transformers.models.Normalize":
				e.normalize = true
			default:
				return nil, unsupported(modsPath, fmt.Sprintf("module %s is not supported (Transformer, Pooling and Normalize are)", m.Type), "choose a model whose pipeline has only those modules")
			}
		}
	}
	if e.enc, err = loadEncoder(dir); err != nil {
		return nil, err
	}
	if e.enc.classifier != nil {
		return nil, unsupported(filepath.Join(dir, "config.json"), "the model is a cross-encoder (a classification head), which scores pairs and cannot embed", "use it as RERANKING_MODEL_PATH, and a sentence-embedding model here")
	}
	if e.tok, err = loadTokenizer(dir, e.enc); err != nil {
		return nil, err
	}
	var st struct {
		MaxSeqLength int `json:"max_seq_length"`
	}
	if _, err := readJSON(dir, "sentence_bert_config.json", &st, true); err != nil {
		return nil, err
	}
	limit := e.enc.cfg.MaxPositions
	if st.MaxSeqLength > 0 {
		limit = min(limit, st.MaxSeqLength)
	}
	if m := e.tok.MaxLen(); m > 0 {
		limit = min(limit, m)
	}
	e.tok = e.tok.WithMaxLen(limit)

	var sc struct {
		Prompts map[string]string `json:"prompts"`
	}
	if _, err := readJSON(dir, "config_sentence_transformers.json", &sc, true); err != nil {
		return nil, err
	}
	e.queryPrefix = sc.Prompts["query"]
	e.passagePrefix = sc.Prompts["passage"]
	if e.passagePrefix == "" {
		e.passagePrefix = sc.Prompts["document"]
	}
	if opt.QueryPrefix != nil {
		e.queryPrefix = *opt.QueryPrefix
	}
	if opt.PassagePrefix != nil {
		e.passagePrefix = *opt.PassagePrefix
	}
	return e, nil
}

func poolingMode(pc poolingConfig, path string) (string, error) {
	var modes []string
	for _, m := range []struct {
		on   bool
		name string
	}{{pc.CLS, PoolCLS}, {pc.Mean, PoolMean}, {pc.Max, PoolMax}, {pc.MeanSqrt, PoolMeanSqrt}, {pc.Weighted, "weightedmean"}, {pc.Last, "lasttoken"}} {
		if m.on {
			modes = append(modes, m.name)
		}
	}
	switch {
	case len(modes) == 0:
		return "", malformed(path, "sets no pooling mode", "download the file again")
	case len(modes) > 1:
		return "", unsupported(path, "combines pooling modes "+strings.Join(modes, "+")+"; one mode is supported", "choose a model with one pooling mode")
	case modes[0] == "weightedmean" || modes[0] == "lasttoken":
		return "", unsupported(path, "pooling mode "+modes[0]+" is not supported (cls, mean, max, mean_sqrt_len are)", "choose another model")
	}
	return modes[0], nil
}

// loadTokenizer reads the folder's tokenizer and checks it against the
// encoder's vocabulary.
func loadTokenizer(dir string, enc *Encoder) (*wordpiece.Tokenizer, error) {
	tok, err := wordpiece.Load(dir)
	if err != nil {
		return nil, malformed(dir, "tokenizer: "+err.Error(), "the folder needs tokenizer.json or vocab.txt (a WordPiece vocabulary); download it with the model")
	}
	if tok.VocabSize() > enc.cfg.Vocab {
		return nil, malformed(filepath.Join(dir, "config.json"), fmt.Sprintf("vocab_size %d is smaller than the tokenizer's %d ids", enc.cfg.Vocab, tok.VocabSize()), "the tokenizer and the weights are of different models; download the folder again")
	}
	return tok, nil
}

// Dim is the length of the vectors.
func (e *Embedder) Dim() int { return e.enc.hidden }

// Model is the model's name (Options.Name or the folder's base name).
func (e *Embedder) Model() string { return e.name }

// Embed embeds stored texts (with the passage prefix, when the model
// has one).
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return e.embed(ctx, texts, e.passagePrefix)
}

// EmbedQuery embeds a search query (with the query prefix, when the
// model has one).
func (e *Embedder) EmbedQuery(ctx context.Context, query string) ([]float32, error) {
	v, err := e.embed(ctx, []string{query}, e.queryPrefix)
	if err != nil {
		return nil, err
	}
	return v[0], nil
}

func (e *Embedder) embed(ctx context.Context, texts []string, prefix string) ([][]float32, error) {
	seqs := make([]seq, len(texts))
	for i, t := range texts {
		enc := e.tok.Encode(prefix + t)
		seqs[i] = toSeq(enc)
	}
	out := make([][]float32, 0, len(texts))
	for len(seqs) > 0 {
		n := batchLen(seqs)
		ws := getWorkspace()
		x, starts, err := e.enc.forward(ctx, seqs[:n], ws)
		if err != nil {
			putWorkspace(ws)
			return nil, err
		}
		vecs := make([]float32, n*e.enc.hidden) // one allocation for the pass
		for i := range n {
			v := vecs[i*e.enc.hidden : (i+1)*e.enc.hidden : (i+1)*e.enc.hidden]
			e.pool(v, x, starts[i], starts[i+1])
			if e.normalize {
				wordvec.Normalize(v)
			}
			out = append(out, v)
		}
		putWorkspace(ws)
		seqs = seqs[n:]
	}
	return out, nil
}

// pool reduces the hidden states of tokens [t0, t1) into v.
func (e *Embedder) pool(v, x []float32, t0, t1 int) {
	h := e.enc.hidden
	switch e.pooling {
	case PoolCLS:
		copy(v, x[t0*h:t0*h+h])
	case PoolMax:
		copy(v, x[t0*h:t0*h+h])
		for t := t0 + 1; t < t1; t++ {
			for j, y := range x[t*h : t*h+h] {
				v[j] = max(v[j], y)
			}
		}
	default:
		sum := make([]float64, h)
		for t := t0; t < t1; t++ {
			for j, y := range x[t*h : t*h+h] {
				sum[j] += float64(y)
			}
		}
		d := float64(t1 - t0)
		if e.pooling == PoolMeanSqrt {
			d = math.Sqrt(d)
		}
		for j := range v {
			v[j] = float32(sum[j] / d)
		}
	}
}

func toSeq(enc wordpiece.Encoding) seq {
	s := seq{ids: make([]int32, len(enc.IDs)), types: make([]int8, len(enc.IDs))}
	for i, id := range enc.IDs {
		s.ids[i] = int32(id)
		if i < len(enc.TypeIDs) {
			s.types[i] = int8(min(enc.TypeIDs[i], 127))
		}
	}
	return s
}

// batchLen is how many of seqs, from the first, one forward pass takes:
// as many as fit in maxBatchTokens, and at least one.
func batchLen(seqs []seq) int {
	n, tokens := 0, 0
	for n < len(seqs) && (n == 0 || tokens+len(seqs[n].ids) <= maxBatchTokens) {
		tokens += len(seqs[n].ids)
		n++
	}
	return n
}
