package local

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
)

// bertConfig is the part of a Hugging Face config.json the BERT encoder
// reads.
type bertConfig struct {
	ModelType      string            `json:"model_type"`
	Architectures  []string          `json:"architectures"`
	Hidden         int               `json:"hidden_size"`
	Layers         int               `json:"num_hidden_layers"`
	Heads          int               `json:"num_attention_heads"`
	Intermediate   int               `json:"intermediate_size"`
	HiddenAct      string            `json:"hidden_act"`
	LayerNormEps   float64           `json:"layer_norm_eps"`
	MaxPositions   int               `json:"max_position_embeddings"`
	TypeVocab      int               `json:"type_vocab_size"`
	Vocab          int               `json:"vocab_size"`
	PositionType   string            `json:"position_embedding_type"`
	ID2Label       map[string]string `json:"id2label"`
	PadTokenID     int               `json:"pad_token_id"`
	TorchDType     string            `json:"torch_dtype"`
	UseCache       *bool             `json:"use_cache"`
	Classification bool              `json:"-"`
}

// linear is a dense layer in the checkpoint's layout: w is out x in.
type linear struct {
	w, b    []float32
	in, out int
}

// apply sets y (rows x out) to x·wᵀ + b.
func (l *linear) apply(y, x []float32, rows int) {
	matMulT(y, x, l.w, rows, l.out, l.in)
	addBias(y[:rows*l.out], l.b)
}

type norm struct{ g, b []float32 }

// layer is one transformer block; q, k and v are fused into one linear
// map of 3·hidden outputs, so one product per block computes all three.
type layer struct {
	qkv, attnOut, inter, out linear
	ln1, ln2                 norm
}

// Encoder is a BERT-family transformer encoder with its weights in
// memory: the word, position and token-type embeddings with their layer
// norm, the layers, and for a cross-encoder the pooler and classifier.
// It is safe for concurrent use.
type Encoder struct {
	cfg                        bertConfig
	wordEmb, posEmb, typeEmb   []float32
	embLN                      norm
	layers                     []layer
	pooler, classifier         *linear
	act                        func([]float32)
	hidden, heads, headDim, nl int
}

// seq is one tokenised input: ids with their token types, already
// truncated and wrapped in the special tokens.
type seq struct {
	ids   []int32
	types []int8
}

// forward runs the encoder over seqs and returns the last hidden states,
// all sequences' tokens stacked (total tokens x hidden), and each
// sequence's first row. The sequences are not padded: the linear maps
// run over the stacked tokens and attention within each sequence, which
// equals the padded batch with its attention mask and wastes nothing on
// padding.
//
// The activations live in ws, which the caller takes from getWorkspace
// and hands back with putWorkspace once it has read x: a 128-token
// sentence through a MiniLM-sized model needs 2 MB of them, which were
// allocated afresh on every call.
func (e *Encoder) forward(ctx context.Context, seqs []seq, ws *workspace) (x []float32, starts []int, err error) {
	h := e.hidden
	starts = make([]int, len(seqs)+1)
	for i, s := range seqs {
		if len(s.ids) == 0 {
			// A tokenizer without [CLS] and [SEP] and an empty text: no
			// token to pool (mean pooling would divide by zero).
			return nil, nil, errors.New("the tokenizer produced no token for the input")
		}
		if len(s.ids) > e.cfg.MaxPositions {
			return nil, nil, fmt.Errorf("sequence of %d tokens exceeds the model's %d positions", len(s.ids), e.cfg.MaxPositions)
		}
		starts[i+1] = starts[i] + len(s.ids)
	}
	T := starts[len(seqs)]
	ws.x = grow(ws.x, T*h)
	x = ws.x
	for i, s := range seqs {
		for p, id := range s.ids {
			if id < 0 || int(id) >= e.cfg.Vocab {
				return nil, nil, fmt.Errorf("token id %d outside the vocabulary of %d", id, e.cfg.Vocab)
			}
			tt := int(s.types[p])
			if tt >= e.cfg.TypeVocab {
				tt = 0
			}
			row := x[(starts[i]+p)*h : (starts[i]+p+1)*h]
			w := e.wordEmb[int(id)*h : int(id)*h+h]
			pe := e.posEmb[p*h : p*h+h]
			te := e.typeEmb[tt*h : tt*h+h]
			for j := range row {
				row[j] = w[j] + pe[j] + te[j]
			}
		}
	}
	layerNorm(x, e.embLN.g, e.embLN.b, e.cfg.LayerNormEps)

	ws.qkv = grow(ws.qkv, T*3*h)
	ws.att = grow(ws.att, T*h)
	ws.tmp = grow(ws.tmp, T*h)
	ws.inter = grow(ws.inter, T*e.cfg.Intermediate)
	qkv, att, tmp, inter := ws.qkv, ws.att, ws.tmp, ws.inter
	// x and tmp trade places after each residual sum; ws keeps both.
	defer func() { ws.x, ws.tmp = x, tmp }()
	for li := range e.layers {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		l := &e.layers[li]
		l.qkv.apply(qkv, x, T)
		e.attention(att, qkv, starts)
		l.attnOut.apply(tmp, att, T)
		for i := range tmp {
			tmp[i] += x[i]
		}
		layerNorm(tmp, l.ln1.g, l.ln1.b, e.cfg.LayerNormEps)
		x, tmp = tmp, x
		l.inter.apply(inter, x, T)
		e.act(inter)
		l.out.apply(tmp, inter, T)
		for i := range tmp {
			tmp[i] += x[i]
		}
		layerNorm(tmp, l.ln2.g, l.ln2.b, e.cfg.LayerNormEps)
		x, tmp = tmp, x
	}
	return x, starts, nil
}

// attnScratch is one worker's buffers for one (sequence, head).
type attnScratch struct{ q, k, vt, s, c []float32 }

// workspace holds one forward pass's activations.
type workspace struct{ x, qkv, att, tmp, inter []float32 }

var (
	workspaces sync.Pool // *workspace
	scratches  sync.Pool // *attnScratch
)

func getWorkspace() *workspace {
	if ws, ok := workspaces.Get().(*workspace); ok {
		return ws
	}
	return &workspace{}
}

func putWorkspace(ws *workspace) { workspaces.Put(ws) }

func getScratch() *attnScratch {
	if sc, ok := scratches.Get().(*attnScratch); ok {
		return sc
	}
	return &attnScratch{}
}

func grow(b []float32, n int) []float32 {
	if cap(b) < n {
		return make([]float32, n)
	}
	return b[:n]
}

// attention computes the scaled dot-product attention of every head of
// every sequence from the fused projections qkv (tokens x 3·hidden: q,
// then k, then v) into ctx (tokens x hidden). The (sequence, head) pairs
// are spread over the cores; each product runs on its worker alone.
func (e *Encoder) attention(ctx, qkv []float32, starts []int) {
	nseq := len(starts) - 1
	tasks := nseq * e.heads
	workers := min(runtime.GOMAXPROCS(0), tasks)
	longest := 0
	for i := range nseq {
		longest = max(longest, starts[i+1]-starts[i])
	}
	if workers <= 1 || longest*longest*e.hidden < parallelFlops {
		sc := getScratch()
		for t := range tasks {
			e.attendHead(ctx, qkv, starts[t/e.heads], starts[t/e.heads+1], t%e.heads, sc)
		}
		scratches.Put(sc)
		return
	}
	var mu sync.Mutex
	next := 0
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			sc := getScratch()
			defer scratches.Put(sc)
			for {
				mu.Lock()
				t := next
				next++
				mu.Unlock()
				if t >= tasks {
					return
				}
				e.attendHead(ctx, qkv, starts[t/e.heads], starts[t/e.heads+1], t%e.heads, sc)
			}
		})
	}
	wg.Wait()
}

// attendHead is head hd over the tokens [t0, t1) of one sequence. The
// score rows are padded with zeros to a multiple of 8 columns so the
// probability-times-value product runs on the kernel too.
func (e *Encoder) attendHead(ctx, qkv []float32, t0, t1, hd int, sc *attnScratch) {
	L, dh, h := t1-t0, e.headDim, e.hidden
	Lp := (L + 7) &^ 7
	sc.q = grow(sc.q, L*dh)
	sc.k = grow(sc.k, L*dh)
	sc.vt = grow(sc.vt, dh*Lp)
	sc.s = grow(sc.s, L*Lp)
	sc.c = grow(sc.c, L*dh)
	clear(sc.vt)
	clear(sc.s)
	for p := range L {
		row := qkv[(t0+p)*3*h:]
		copy(sc.q[p*dh:(p+1)*dh], row[hd*dh:])
		copy(sc.k[p*dh:(p+1)*dh], row[h+hd*dh:])
		v := row[2*h+hd*dh : 2*h+hd*dh+dh]
		for d, x := range v {
			sc.vt[d*Lp+p] = x
		}
	}
	matMulTS(sc.s, Lp, sc.q, sc.k, L, L, dh, false)
	scale := float32(1 / math.Sqrt(float64(dh)))
	for p := range L {
		row := sc.s[p*Lp : p*Lp+L]
		for i := range row {
			row[i] *= scale
		}
		softmax(row)
	}
	matMulTS(sc.c, dh, sc.s, sc.vt, L, dh, Lp, false)
	for p := range L {
		copy(ctx[(t0+p)*h+hd*dh:(t0+p)*h+hd*dh+dh], sc.c[p*dh:(p+1)*dh])
	}
}
