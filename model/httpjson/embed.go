package httpjson

import (
	"context"
	"fmt"
	"math"
	"sync"
)

// Batched embeds texts in batches of at most size (0 or less: one batch)
// by calling fn for each batch, and returns the vectors in the order of
// texts. Batches run concurrently, at most parallel at a time (at least
// one); the first error cancels the batches still running and is
// returned. fn must return exactly one vector per text of its batch.
func Batched(ctx context.Context, texts []string, size, parallel int, fn func(ctx context.Context, batch []string) ([][]float32, error)) ([][]float32, error) {
	if len(texts) == 0 {
		return [][]float32{}, nil
	}
	if size <= 0 || size > len(texts) {
		size = len(texts)
	}
	nb := (len(texts) + size - 1) / size
	out := make([][]float32, len(texts))
	if nb == 1 {
		vecs, err := fn(ctx, texts)
		if err != nil {
			return nil, err
		}
		if len(vecs) != len(texts) {
			return nil, fmt.Errorf("got %d vectors for %d texts", len(vecs), len(texts))
		}
		copy(out, vecs)
		return out, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	next := make(chan int)
	workers := min(max(parallel, 1), nb)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range next {
				if ctx.Err() != nil {
					continue // an earlier batch failed: drain
				}
				lo, hi := b*size, min((b+1)*size, len(texts))
				vecs, err := fn(ctx, texts[lo:hi])
				if err == nil && len(vecs) != hi-lo {
					err = fmt.Errorf("got %d vectors for %d texts", len(vecs), hi-lo)
				}
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
						cancel()
					}
					mu.Unlock()
					continue
				}
				copy(out[lo:hi], vecs)
			}
		}()
	}
feed:
	for b := range nb {
		select {
		case next <- b:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// Vector converts one decoded embedding to float32 and checks it: its
// length must be want (when want > 0) and every value finite, also after
// the conversion to float32. model names the source in the error.
func Vector(model string, want int, v []float64) ([]float32, error) {
	if want > 0 && len(v) != want {
		return nil, fmt.Errorf("model %q returned a vector of %d dimensions, but %d are configured", model, len(v), want)
	}
	if len(v) == 0 {
		return nil, fmt.Errorf("model %q returned an empty vector", model)
	}
	out := make([]float32, len(v))
	for i, x := range v {
		f := float32(x)
		if math.IsNaN(x) || math.IsInf(float64(f), 0) {
			return nil, fmt.Errorf("model %q returned a non-finite value (%v) at dimension %d", model, x, i)
		}
		out[i] = f
	}
	return out, nil
}
