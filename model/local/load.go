package local

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/model/safetensors"
)

// FolderError is the error of a model folder that cannot be used: File
// names the file at fault (or the folder), Problem what is wrong and Fix
// what to do. It wraps cerrors.ErrMalformed (a file is missing or
// damaged) or cerrors.ErrUnsupported (the model is of a kind this build
// cannot run).
type FolderError struct {
	File, Problem, Fix string
	Err                error
}

func (e *FolderError) Error() string {
	s := e.File + ": " + e.Problem
	if e.Fix != "" {
		s += "; " + e.Fix
	}
	return s
}

func (e *FolderError) Unwrap() error { return e.Err }

func malformed(file, problem, fix string) error {
	return &FolderError{File: file, Problem: problem, Fix: fix, Err: cerrors.ErrMalformed}
}

func unsupported(file, problem, fix string) error {
	return &FolderError{File: file, Problem: problem, Fix: fix, Err: cerrors.ErrUnsupported}
}

// fetchHint is the fix of a folder missing a file.
const fetchHint = "download the whole model folder on a networked machine (e.g. `huggingface-cli download sentence-transformers/all-MiniLM-L6-v2 --local-dir all-MiniLM-L6-v2`) and point the setting at it (docs/local-models.md)"

// readJSON decodes dir/name into v; optional files that are absent
// report ok=false.
func readJSON(dir, name string, v any, optional bool) (ok bool, err error) {
	p := filepath.Join(dir, name)
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		if optional {
			return false, nil
		}
		return false, malformed(p, "missing", fetchHint)
	}
	if err != nil {
		return false, malformed(p, "cannot be read: "+err.Error(), "check the path and its permissions")
	}
	if err := json.Unmarshal(b, v); err != nil {
		return false, malformed(p, "is not valid JSON ("+err.Error()+")", "download the file again")
	}
	return true, nil
}

// loadEncoder reads config.json and model.safetensors of dir.
func loadEncoder(dir string) (*Encoder, error) {
	var cfg bertConfig
	cfg.LayerNormEps = 1e-12
	cfg.HiddenAct = "gelu"
	cfg.TypeVocab = 2
	if _, err := readJSON(dir, "config.json", &cfg, false); err != nil {
		return nil, err
	}
	cfgPath := filepath.Join(dir, "config.json")
	if cfg.ModelType != "bert" {
		return nil, unsupported(cfgPath, fmt.Sprintf("model_type %q is not supported (BERT-family encoders only: model_type \"bert\", as MiniLM, bge, e5 and gte-small are)", cfg.ModelType),
			"choose a BERT-based model, or use EMBEDDING_PROVIDER=ollama for other architectures")
	}
	if cfg.PositionType != "" && cfg.PositionType != "absolute" {
		return nil, unsupported(cfgPath, fmt.Sprintf("position_embedding_type %q is not supported (only absolute)", cfg.PositionType), "choose a model with absolute position embeddings")
	}
	for _, a := range cfg.Architectures {
		if strings.HasSuffix(a, "ForSequenceClassification") {
			cfg.Classification = true
		}
	}
	e := &Encoder{cfg: cfg, hidden: cfg.Hidden, heads: cfg.Heads, nl: cfg.Layers}
	switch {
	case cfg.Hidden <= 0 || cfg.Heads <= 0 || cfg.Layers <= 0 || cfg.Intermediate <= 0 || cfg.Vocab <= 0 || cfg.MaxPositions <= 0 || cfg.TypeVocab <= 0:
		return nil, malformed(cfgPath, "hidden_size, num_attention_heads, num_hidden_layers, intermediate_size, vocab_size, max_position_embeddings and type_vocab_size must be positive", "download the file again")
	case cfg.Hidden%cfg.Heads != 0:
		return nil, malformed(cfgPath, fmt.Sprintf("hidden_size %d is not a multiple of num_attention_heads %d", cfg.Hidden, cfg.Heads), "download the file again")
	case cfg.Hidden > 8192 || cfg.Layers > 128 || cfg.Intermediate > 65536 || cfg.MaxPositions > 1<<16:
		return nil, unsupported(cfgPath, "the model is larger than this encoder accepts (hidden 8192, 128 layers)", "choose a smaller model")
	}
	e.headDim = cfg.Hidden / cfg.Heads
	switch cfg.HiddenAct {
	case "gelu":
		e.act = gelu
	case "gelu_new", "gelu_pytorch_tanh", "gelu_fast":
		e.act = geluTanh
	case "relu":
		e.act = relu
	default:
		return nil, unsupported(cfgPath, fmt.Sprintf("hidden_act %q is not supported (gelu, gelu_new, relu)", cfg.HiddenAct), "choose another model")
	}

	wpath := filepath.Join(dir, "model.safetensors")
	f, err := safetensors.Open(wpath)
	if errors.Is(err, fs.ErrNotExist) {
		fix := fetchHint
		if _, e2 := os.Stat(filepath.Join(dir, "pytorch_model.bin")); e2 == nil {
			fix = "the folder holds only pytorch_model.bin (a pickle this build does not read); download model.safetensors from the model's page, or convert it once with Python's safetensors package"
		}
		return nil, malformed(wpath, "missing", fix)
	}
	if err != nil {
		return nil, malformed(wpath, "cannot be read: "+err.Error(), "download the file again")
	}
	defer f.Close()
	w := weights{f: f, path: wpath}
	h, it := cfg.Hidden, cfg.Intermediate
	e.wordEmb = w.get("embeddings.word_embeddings.weight", cfg.Vocab, h)
	e.posEmb = w.get("embeddings.position_embeddings.weight", cfg.MaxPositions, h)
	e.typeEmb = w.get("embeddings.token_type_embeddings.weight", cfg.TypeVocab, h)
	e.embLN = w.norm("embeddings.LayerNorm", h)
	e.layers = make([]layer, cfg.Layers)
	for i := range e.layers {
		p := fmt.Sprintf("encoder.layer.%d.", i)
		q := w.linear(p+"attention.self.query", h, h)
		k := w.linear(p+"attention.self.key", h, h)
		v := w.linear(p+"attention.self.value", h, h)
		l := &e.layers[i]
		l.qkv = linear{in: h, out: 3 * h, w: concat(q.w, k.w, v.w), b: concat(q.b, k.b, v.b)}
		l.attnOut = w.linear(p+"attention.output.dense", h, h)
		l.ln1 = w.norm(p+"attention.output.LayerNorm", h)
		l.inter = w.linear(p+"intermediate.dense", it, h)
		l.out = w.linear(p+"output.dense", h, it)
		l.ln2 = w.norm(p+"output.LayerNorm", h)
	}
	if cfg.Classification {
		pl := w.linear("pooler.dense", h, h)
		e.pooler = &pl
		labels := 1
		if info, ok := f.Info("classifier.weight"); ok && len(info.Shape) == 2 {
			labels = info.Shape[0]
		}
		if labels != 1 {
			w.err = unsupported(wpath, fmt.Sprintf("the classifier has %d labels; a reranker needs a cross-encoder with one relevance score", labels), "choose a cross-encoder such as cross-encoder/ms-marco-MiniLM-L-6-v2")
		}
		c := w.linear("classifier", 1, h)
		e.classifier = &c
	}
	if w.err != nil {
		return nil, w.err
	}
	return e, nil
}

func concat(xs ...[]float32) []float32 {
	var out []float32
	for _, x := range xs {
		out = append(out, x...)
	}
	return out
}

// weights reads named tensors, keeping the first error. Checkpoints name
// the encoder's tensors with or without the "bert." prefix (a
// sentence-transformers model saves the bare encoder, a cross-encoder
// the classification model around it) and the layer norms' parameters
// weight/bias or, in older ones, gamma/beta.
type weights struct {
	f    *safetensors.File
	path string
	err  error
}

func (w *weights) find(names ...string) string {
	for _, n := range names {
		for _, p := range []string{"", "bert."} {
			if _, ok := w.f.Info(p + n); ok {
				return p + n
			}
		}
	}
	return ""
}

func (w *weights) get(name string, shape ...int) []float32 {
	return w.getAny([]string{name}, shape...)
}

func (w *weights) getAny(names []string, shape ...int) []float32 {
	if w.err != nil {
		return nil
	}
	n := w.find(names...)
	if n == "" {
		w.err = malformed(w.path, fmt.Sprintf("has no tensor %s", names[0]), "the file is not a BERT checkpoint of the architecture config.json declares; download the model again")
		return nil
	}
	t, err := w.f.Tensor(n)
	if err != nil {
		w.err = malformed(w.path, err.Error(), "download the file again")
		return nil
	}
	want := 1
	for _, s := range shape {
		want *= s
	}
	if len(t.Data) != want || len(t.Shape) != len(shape) {
		w.err = malformed(w.path, fmt.Sprintf("tensor %s has shape %v, config.json implies %v", n, t.Shape, shape), "config.json and model.safetensors are of different models; download both again")
		return nil
	}
	for i := range shape {
		if t.Shape[i] != shape[i] {
			w.err = malformed(w.path, fmt.Sprintf("tensor %s has shape %v, config.json implies %v", n, t.Shape, shape), "config.json and model.safetensors are of different models; download both again")
			return nil
		}
	}
	return t.Data
}

func (w *weights) linear(prefix string, out, in int) linear {
	return linear{in: in, out: out, w: w.get(prefix+".weight", out, in), b: w.get(prefix+".bias", out)}
}

func (w *weights) norm(prefix string, h int) norm {
	return norm{g: w.getAny([]string{prefix + ".weight", prefix + ".gamma"}, h), b: w.getAny([]string{prefix + ".bias", prefix + ".beta"}, h)}
}
