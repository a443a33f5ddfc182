// Package hashembed owns a deterministic hashing embedder for tests and as
// a data-free fallback: each lower-cased letter/digit token, and each of
// its character trigrams at half weight, adds ±1 to a bucket chosen by its
// FNV-1a hash (the sign from another hash bit), and the sum is
// L2-normalised. Texts sharing tokens are near; there are no semantics
// beyond that.
//
//	e := hashembed.New(64)
//	vecs, _ := e.Embed(ctx, []string{"alpha beta"})
package hashembed

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"unicode"

	"github.com/contextd/contextd/model"
)

// DefaultDim is the dimension New uses for 0.
const DefaultDim = 256

// Embedder is the hashing embedder. The zero value uses DefaultDim.
type Embedder struct {
	dim int
}

// New returns an embedder of dim dimensions (0 means DefaultDim).
func New(dim int) *Embedder { return &Embedder{dim: dim} }

// Dim is the vector dimension.
func (e *Embedder) Dim() int {
	if e.dim <= 0 {
		return DefaultDim
	}
	return e.dim
}

// Model names the embedder and its dimension, e.g. "hash-v1-256".
func (e *Embedder) Model() string { return fmt.Sprintf("hash-v1-%d", e.Dim()) }

// Embed returns one vector per text; a text without tokens gives the zero
// vector.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	dim := e.Dim()
	out := make([][]float32, len(texts))
	for i, s := range texts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		v := make([]float32, dim)
		for _, tok := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r)
		}) {
			add(v, "w:"+tok, 1)
			rs := []rune(tok)
			for j := 0; j+3 <= len(rs); j++ {
				add(v, "t:"+string(rs[j:j+3]), 0.5)
			}
		}
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		if n > 0 {
			inv := float32(1 / math.Sqrt(n))
			for k := range v {
				v[k] *= inv
			}
		}
		out[i] = v
	}
	return out, nil
}

func add(v []float32, feature string, w float32) {
	h := fnv.New64a()
	_, _ = h.Write([]byte(feature))
	x := h.Sum64()
	if x>>63 == 1 {
		w = -w
	}
	v[(x&(1<<62-1))%uint64(len(v))] += w
}

// Embedder is what the engine's embedding seam expects.
var _ model.Embedder = (*Embedder)(nil)
