package generate

import (
	"context"
	"slices"
	"testing"

	"github.com/contextd/contextd/model/local"
	"github.com/contextd/contextd/quant"
)

// TestEmbedQueryUsesQueryPrompt: with an embedder that tells queries from
// stored texts (a local model with e5-style prompts), search queries go
// through EmbedQuery and stored texts through Embed.
func TestEmbedQueryUsesQueryPrompt(t *testing.T) {
	em, err := local.Load("../../model/local/testdata/mean-norm", local.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := New(Options{Embedding: EmbeddingOptions{Embedder: em, DisableChunking: true, Compression: quant.Settings{Disabled: true}}})
	ctx := context.Background()
	const text = "engine failure"
	q, err := g.EmbedQuery(ctx, text)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := g.EmbedText(ctx, text)
	if err != nil {
		t.Fatal(err)
	}
	wantQ, _ := em.EmbedQuery(ctx, text)
	wantP, _ := em.Embed(ctx, []string{text})
	if !slices.Equal(q, wantQ) || !slices.Equal(stored.Chunks[0].Vector, wantP[0]) || slices.Equal(wantQ, wantP[0]) {
		t.Fatalf("query %v\nstored %v\nwant query %v, stored %v (and the two different)", q[:3], stored.Chunks[0].Vector[:3], wantQ[:3], wantP[0][:3])
	}
}
