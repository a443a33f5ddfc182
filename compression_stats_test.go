package contextd

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextd/contextd/model/builtin"
	"github.com/contextd/contextd/quant"
)

// TestStatisticsCompression_C15: the compression block of get_statistics
// is {enabled:true, available:false, message} while SQL holds no
// compression provenance, and {enabled:false, available:false} when
// compression is off or there are no embeddings.
func TestStatisticsCompression_C15(t *testing.T) {
	for _, c := range []struct {
		name string
		emb  EmbeddingConfig
		want FeatureStatus
	}{
		{"default", EmbeddingConfig{Embedder: &builtin.Embedder{}}, FeatureStatus{Enabled: true, Message: quant.NotBootstrapped}},
		{"disabled", EmbeddingConfig{Embedder: &builtin.Embedder{}, Compression: quant.Settings{Disabled: true}}, FeatureStatus{}},
		{"no embeddings", EmbeddingConfig{}, FeatureStatus{}},
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
			st, err := eng.Statistics(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if st.Compression != c.want {
				t.Fatalf("compression %+v, want %+v", st.Compression, c.want)
			}
		})
	}
	if quant.NotBootstrapped != "Compression enabled but provenance not bootstrapped" {
		t.Fatal("the C.15 message changed")
	}
}
