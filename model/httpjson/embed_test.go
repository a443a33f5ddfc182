package httpjson

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync/atomic"
	"testing"
)

func TestBatched(t *testing.T) {
	in := []string{"a", "b", "c", "d", "e", "f", "g"}
	var calls atomic.Int32
	out, err := Batched(context.Background(), in, 3, 2, func(_ context.Context, b []string) ([][]float32, error) {
		calls.Add(1)
		vs := make([][]float32, len(b))
		for i, s := range b {
			vs[i] = []float32{float32(s[0])}
		}
		return vs, nil
	})
	if err != nil || calls.Load() != 3 {
		t.Fatalf("Batched: %v after %d calls", err, calls.Load())
	}
	for i, v := range out {
		if v[0] != float32(in[i][0]) {
			t.Fatalf("vector %d = %v", i, v)
		}
	}
	boom := errors.New("boom")
	_, err = Batched(context.Background(), in, 1, 1, func(_ context.Context, b []string) ([][]float32, error) {
		if b[0] == "c" {
			return nil, boom
		}
		return [][]float32{{1}}, nil
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	_, err = Batched(context.Background(), in, 0, 1, func(_ context.Context, b []string) ([][]float32, error) {
		return [][]float32{{1}}, nil
	})
	if err == nil || !strings.Contains(err.Error(), "1 vectors for 7 texts") {
		t.Fatalf("short answer: err = %v", err)
	}
}

func TestVector(t *testing.T) {
	if v, err := Vector("m", 2, []float64{0.5, -1}); err != nil || v[0] != 0.5 || v[1] != -1 {
		t.Fatalf("Vector = %v, %v", v, err)
	}
	if _, err := Vector("m", 3, []float64{1, 2}); err == nil || !strings.Contains(err.Error(), `model "m" returned a vector of 2 dimensions, but 3 are configured`) {
		t.Fatalf("dimension err = %v", err)
	}
	for _, bad := range []float64{math.NaN(), math.Inf(1), 1e39} {
		if _, err := Vector("m", 0, []float64{0, bad}); err == nil || !strings.Contains(err.Error(), "non-finite") {
			t.Fatalf("Vector(%v) err = %v", bad, err)
		}
	}
	if _, err := Vector("m", 0, nil); err == nil {
		t.Fatal("empty vector accepted")
	}
}
