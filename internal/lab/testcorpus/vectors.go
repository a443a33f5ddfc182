package testcorpus

import (
	"context"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"github.com/contextd/contextd/model/builtin"
)

// The sentence-vector set: Sentences embedded by the built-in embedder
// (100-d, unit length), shuffled with a fixed seed. Sentences that embed
// to a vector already seen (the embedder ignores word order and
// punctuation) and texts that embed to zero are dropped, so an exact
// top 10 has no ties between copies. The vector package's recall gates
// and the engine's graph configuration (internal/search) measure on it.
var (
	vecOnce  sync.Once
	vecs     [][]float32
	vecTexts int
	vecErr   error
)

// SentenceVectors returns the distinct sentence vectors in shuffled order
// and how many distinct sentences they came from (about 119k on Go 1.26).
// The set is built once per process, embedding on every core; callers
// take the first n as a collection and the next ones as held-out queries,
// and must not modify the vectors.
func SentenceVectors() ([][]float32, int, error) {
	vecOnce.Do(func() {
		texts, err := Sentences()
		if err != nil {
			vecErr = err
			return
		}
		vecTexts = len(texts)
		r := rand.New(rand.NewPCG(4, 100))
		r.Shuffle(len(texts), func(i, j int) { texts[i], texts[j] = texts[j], texts[i] })
		all, err := Embed(texts)
		if err != nil {
			vecErr = err
			return
		}
		seen := make(map[string]bool, len(all))
		buf := make([]byte, 4*builtin.EmbedderDim)
		for _, v := range all {
			zero := true
			for i, x := range v {
				binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(x))
				zero = zero && x == 0
			}
			if zero || seen[string(buf)] {
				continue
			}
			seen[string(buf)] = true
			vecs = append(vecs, v)
		}
	})
	return vecs, vecTexts, vecErr
}

// Embed embeds texts with the built-in embedder on every core, in order.
func Embed(texts []string) ([][]float32, error) {
	var e builtin.Embedder
	all := make([][]float32, len(texts))
	workers := runtime.GOMAXPROCS(0)
	per := (len(texts) + workers - 1) / workers
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := range workers {
		lo, hi := min(w*per, len(texts)), min((w+1)*per, len(texts))
		wg.Go(func() {
			vs, err := e.Embed(context.Background(), texts[lo:hi])
			copy(all[lo:hi], vs)
			errs[w] = err
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return all, nil
}
