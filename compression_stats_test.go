package contextd

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextd/contextd/internal/compress"
	"github.com/contextd/contextd/internal/testtier"
	"github.com/contextd/contextd/model/builtin"
	"github.com/contextd/contextd/quant"
)

// TestStatisticsCompression_C15: the compression block of get_statistics
// carries the recorded provenance's settings once the start-up check
// bootstrapped it (the default), and is {enabled:false, available:false}
// when compression is off or there are no embeddings; embeddings_size_mb
// is the exact payload size with compression on and the float32 estimate
// (embeddings_size_estimated) with it off.
func TestStatisticsCompression_C15(t *testing.T) {
	seed := uint32(0)
	for _, c := range []struct {
		name      string
		emb       EmbeddingConfig
		want      compress.Status
		json      string
		estimated bool
		perChunk  float64 // stored bytes per 100-d chunk
	}{
		{"default", EmbeddingConfig{Embedder: &builtin.Embedder{}, Compression: quant.Settings{MaxConcurrent: 3}},
			compress.Status{Enabled: true, Available: true, Provider: "turboquant", Bits: 4, Variant: "mse", Seed: &seed, Dim: 100, MaxConcurrent: 3},
			`{"enabled":true,"available":true,"provider":"turboquant","bits":4,"variant":"mse","seed":0,"dim":100,"max_concurrent":3}`, false, 78}, // TQP1 header 16 + norm column 8 + index column 4+50
		{"disabled", EmbeddingConfig{Embedder: &builtin.Embedder{}, Compression: quant.Settings{Disabled: true}}, compress.Status{},
			`{"enabled":false,"available":false}`, true, 400},
		{"no embeddings", EmbeddingConfig{}, compress.Status{}, `{"enabled":false,"available":false}`, false, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := as("alice")
			eng, err := Open(context.Background(), Config{
				DBPath: filepath.Join(t.TempDir(), "ctx.db"), FTS: FTSConfig{Progress: &strings.Builder{}}, Embedding: c.emb,
			})
			if err != nil {
				t.Fatal(err)
			}
			defer eng.Close()
			// 2,000 entries tell 78 bytes a chunk from 82 at two decimals
			// of a MiB; under the race detector, whose point here is not
			// a size, a quarter (the sizes still tell compressed from
			// float32 apart by a factor of five).
			n := testtier.RaceShare(2000)
			no := false
			req := StoreBatchRequest{}
			for i := range 100 {
				req.Entries = append(req.Entries, StoreBatchItem{StoreRequest: StoreRequest{ThreadID: "t", Source: "user",
					Text: strings.Repeat("word ", i+1), Deduplicate: &no}})
			}
			for range n / 100 {
				if _, err := eng.StoreBatch(ctx, req); err != nil {
					t.Fatal(err)
				}
			}
			st, err := eng.Statistics(ctx)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(st.Compression)
			if string(got) != c.json {
				t.Fatalf("compression %s, want %s", got, c.json)
			}
			if c.perChunk == 0 {
				if st.EmbeddingsSizeMB != nil || st.EmbeddingsEstimated != nil {
					t.Fatalf("embeddings size without embeddings: %v %v", st.EmbeddingsSizeMB, st.EmbeddingsEstimated)
				}
				return
			}
			want := float64(n) * c.perChunk / (1 << 20)
			if st.EmbeddingsSizeMB == nil || *st.EmbeddingsSizeMB < want-0.005 || *st.EmbeddingsSizeMB > want+0.005 || *st.EmbeddingsEstimated != c.estimated {
				t.Fatalf("embeddings_size_mb %v (estimated %v), want %.2f (%v)", *st.EmbeddingsSizeMB, *st.EmbeddingsEstimated, want, c.estimated)
			}
		})
	}
	if compress.NotBootstrapped != "Compression enabled but provenance not bootstrapped" {
		t.Fatal("the C.15 message changed")
	}
}
