package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"

	"github.com/contextd/contextd/internal/wordvec"
)

// config is one static distillation: the encoder's vector of each word
// alone, reduced to dim principal axes (0: all 512), averaged over a
// text's tokens with SIF weights a/(a + p(w)) (p from the Zipf rank, as
// the built-in table does), normalised, then whitened on the generator's
// sample when eps > 0.
type config struct {
	dim   int
	sifA  float64
	eps   float64
	words int     // the most frequent words used (0: all exported)
	blend bool    // also blend it with the built-in vector
	joint float32 // > 0: one table of [GloVe ; distilled] word vectors, the distilled part at this weight, reduced to dim
}

func (c config) String() string {
	s := fmt.Sprintf("distilled %dk words, PCA %d, SIF a = %g", c.words/1000, c.dim, c.sifA)
	if c.joint > 0 {
		s = fmt.Sprintf("joint table: GloVe ⊕ distilled (weight %.2f), PCA %d, SIF a = %g", c.joint, c.dim, c.sifA)
	}
	if c.eps > 0 {
		s += fmt.Sprintf(", whitened ε = %g", c.eps)
	}
	return s
}

// variants are measured in order; the choice looks at the odd half and
// the development split only.
var variants = []config{
	{dim: 512, sifA: 1e-4, words: 100000},
	{dim: 256, sifA: 1e-4, words: 100000},
	{dim: 100, sifA: 1e-4, words: 100000},
	{dim: 100, sifA: 1e-3, words: 100000},
	{dim: 100, sifA: 1e-5, words: 100000},
	{dim: 100, sifA: 1e-4, words: 50000},
	{dim: 256, sifA: 1e-4, eps: 0.005, words: 100000},
	{dim: 100, sifA: 1e-4, eps: 0.001, words: 100000},
	{dim: 100, sifA: 1e-4, eps: 0.005, words: 100000, blend: true},
	{dim: 100, sifA: 1e-4, eps: 0.02, words: 100000},
	{dim: 100, sifA: 1e-4, eps: 0.005, words: 100000, joint: 0.3},
	{dim: 100, sifA: 1e-4, eps: 0.005, words: 100000, joint: 0.5},
	{dim: 100, sifA: 1e-4, eps: 0.005, words: 100000, joint: 0.7},
	{dim: 100, sifA: 1e-4, eps: 0.001, words: 100000, joint: 0.4},
	{dim: 100, sifA: 1e-4, eps: 0.001, words: 100000, joint: 0.5},
	{dim: 100, sifA: 1e-4, eps: 0.002, words: 100000, joint: 0.5},
	{dim: 100, sifA: 1e-4, eps: 0.001, words: 100000, joint: 0.6},
	{dim: 100, sifA: 1e-4, eps: 0.002, words: 100000, joint: 0.6},
	{dim: 100, sifA: 1e-4, eps: 0.001, words: 100000, joint: 0.7},
	{dim: 100, sifA: 1e-4, eps: 0.002, words: 100000, joint: 0.7},
}

type distiller struct {
	t      *wordvec.Table
	words  [][]float32 // the encoder's 512-d vector per table word, table order
	sample []string
	pca    map[int][][]float32 // reduced word vectors per dim
}

func (d *distiller) reduced(dim int) [][]float32 {
	if d.pca == nil {
		d.pca = map[int][][]float32{}
	}
	if r, ok := d.pca[dim]; ok {
		return r
	}
	r := project(d.words, 512, dim)
	d.pca[dim] = r
	return r
}

// jointTable is, per word, the built-in GloVe vector and the distilled
// one (PCA 256) side by side, each part scaled to unit mean norm and then
// by 1 − weight and weight, reduced to dim principal axes: one table of
// the built-in's size that carries both.
func (d *distiller) jointTable(weight float32, dim int) [][]float32 {
	u := d.reduced(256)
	g := make([][]float32, len(u))
	var ng, nu float64
	for i := range u {
		g[i] = make([]float32, d.t.Dim)
		d.t.Vector(i, g[i])
		ng += norm(g[i])
		nu += norm(u[i])
	}
	sg := (1 - weight) / float32(ng/float64(len(u)))
	su := weight / float32(nu/float64(len(u)))
	width := d.t.Dim + 256
	rows := make([][]float32, len(u))
	for i := range u {
		r := make([]float32, 0, width)
		for _, x := range g[i] {
			r = append(r, sg*x)
		}
		for _, x := range u[i] {
			r = append(r, su*x)
		}
		rows[i] = r
	}
	return project(rows, width, dim)
}

// project reduces rows (each of width) to their dim principal axes.
func project(rows [][]float32, width, dim int) [][]float32 {
	return projectWith(rows, rows, width, dim)
}

// projectWith reduces rows to the dim principal axes of fit.
func projectWith(fit, rows [][]float32, width, dim int) [][]float32 {
	return wordvec.Project(fit, rows, width, dim)
}

// mean is the SIF-weighted mean of text's known tokens (unknown ones are
// skipped), normalised; nil when none is known.
func (d *distiller) mean(text string, vecs [][]float32, cfg config, h float64) []float32 {
	out := make([]float32, len(vecs[0]))
	n := 0
	wordvec.Tokens(text, func(tok string) {
		n++
		i := d.t.Lookup(tok)
		if i < 0 || i >= len(vecs) || i >= cfg.words {
			return
		}
		p := 1 / (float64(d.t.Ranks[i]+1) * h)
		w := float32(cfg.sifA / (cfg.sifA + p))
		for k, x := range vecs[i] {
			out[k] += w * x
		}
	})
	if n == 0 {
		return out
	}
	wordvec.Normalize(out)
	return out
}

func (d *distiller) embedAll(ctx context.Context, texts []string, cfg config) ([][]float32, error) {
	vecs := d.words
	switch {
	case cfg.joint > 0:
		vecs = d.jointTable(cfg.joint, cfg.dim)
	case cfg.dim < 512:
		vecs = d.reduced(cfg.dim)
	}
	var h float64
	for r := 1; r <= d.t.Vocab; r++ {
		h += 1 / float64(r)
	}
	out := make([][]float32, len(texts))
	for i, s := range texts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out[i] = d.mean(s, vecs, cfg, h)
	}
	if cfg.eps > 0 {
		var sample [][]float32
		for _, s := range d.sample {
			if v := d.mean(s, vecs, cfg, h); norm(v) > 0 {
				sample = append(sample, v)
			}
		}
		mean, w := wordvec.Whiten(sample, cfg.dim, cfg.eps)
		for _, v := range out {
			whiten(v, mean, w)
		}
	}
	return out, nil
}

func norm(v []float32) float64 { return math.Sqrt(float64(dot(v, v))) }

// whiten replaces v by W·(v − mean), normalised (zero stays zero).
func whiten(v, mean, w []float32) {
	if norm(v) == 0 {
		return
	}
	dim := len(v)
	x := make([]float32, dim)
	for k := range v {
		x[k] = v[k] - mean[k]
	}
	for r := 0; r < dim; r++ {
		v[r] = dot(w[r*dim:(r+1)*dim], x)
	}
	wordvec.Normalize(v)
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}
