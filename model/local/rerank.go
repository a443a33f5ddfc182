package local

import (
	"context"
	"math"
	"path/filepath"

	"github.com/contextd/contextd/model"
	"github.com/contextd/contextd/model/wordpiece"
)

// CrossEncoder is a reranking model: a BERT encoder with a classification
// head of one output, reading a (query, passage) pair as
// [CLS] query [SEP] passage [SEP] and scoring it with the sigmoid of the
// head's logit, as sentence-transformers' CrossEncoder does for a model
// with one label (cross-encoder/ms-marco-MiniLM-L-6-v2, BAAI's
// bge-reranker). It is safe for concurrent use.
type CrossEncoder struct {
	enc *Encoder
	tok *wordpiece.Tokenizer
}

var _ model.Reranker = (*CrossEncoder)(nil)

// LoadCrossEncoder reads a cross-encoder from dir: config.json naming a
// ...ForSequenceClassification architecture, model.safetensors with the
// pooler and the classifier, and tokenizer.json or vocab.txt. Errors are
// *FolderError values naming the file and the fix.
func LoadCrossEncoder(dir string) (*CrossEncoder, error) {
	enc, err := loadEncoder(dir)
	if err != nil {
		return nil, err
	}
	if enc.classifier == nil {
		return nil, unsupported(filepath.Join(dir, "config.json"), "the model has no classification head (architectures does not name a ...ForSequenceClassification)", "choose a cross-encoder such as cross-encoder/ms-marco-MiniLM-L-6-v2; a sentence-embedding model belongs in EMBEDDING_MODEL_PATH")
	}
	tok, err := loadTokenizer(dir, enc)
	if err != nil {
		return nil, err
	}
	limit := enc.cfg.MaxPositions
	if m := tok.MaxLen(); m > 0 {
		limit = min(limit, m)
	}
	return &CrossEncoder{enc: enc, tok: tok.WithMaxLen(limit)}, nil
}

// Logits are the classifier's raw outputs for the pairs (query, p).
func (c *CrossEncoder) Logits(ctx context.Context, query string, passages []string) ([]float64, error) {
	seqs := make([]seq, len(passages))
	for i, p := range passages {
		seqs[i] = toSeq(c.tok.EncodePair(query, p))
	}
	out := make([]float64, 0, len(passages))
	h := c.enc.hidden
	pooled := make([]float32, h)
	var logit [1]float32
	for len(seqs) > 0 {
		n := batchLen(seqs)
		ws := getWorkspace()
		x, starts, err := c.enc.forward(ctx, seqs[:n], ws)
		if err != nil {
			putWorkspace(ws)
			return nil, err
		}
		for i := range n {
			// BERT's pooler: tanh of a dense layer over the [CLS] state.
			c.enc.pooler.apply(pooled, x[starts[i]*h:starts[i]*h+h], 1)
			for j, v := range pooled {
				pooled[j] = float32(math.Tanh(float64(v)))
			}
			c.enc.classifier.apply(logit[:], pooled, 1)
			out = append(out, float64(logit[0]))
		}
		putWorkspace(ws)
		seqs = seqs[n:]
	}
	return out, nil
}

// Rerank scores each passage against query in [0, 1]: the sigmoid of the
// logit.
func (c *CrossEncoder) Rerank(ctx context.Context, query string, passages []string) ([]float64, error) {
	ls, err := c.Logits(ctx, query, passages)
	if err != nil {
		return nil, err
	}
	for i, l := range ls {
		ls[i] = model.ClampScore(1 / (1 + math.Exp(-l)))
	}
	return ls, nil
}
