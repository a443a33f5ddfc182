package contextd

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contextd/contextd/model/hashembed"
)

// TestHybridShortQueryWidens: a short query (fewer than
// HYBRID_FTS_OR_THRESHOLD words) whose AND matches some entries, but
// fewer than the full-text leg's depth, runs that leg as the OR of its
// words, so the leg ranks exactly the entries holding any of them
// (oracle: the entries' words), those holding every word included; one
// whose AND matches nothing keeps the empty leg. The explain statistics
// name the mode the leg ranked by.
func TestHybridShortQueryWidens(t *testing.T) {
	ctx := WithPrincipal(context.Background(), Principal{ID: "alice"})
	for _, backend := range []string{BackendInProcess, BackendNative} {
		t.Run(backend, func(t *testing.T) {
			eng, err := Open(ctx, Config{
				DBPath:    filepath.Join(t.TempDir(), "ctx.db"),
				FTS:       FTSConfig{Backend: backend, Progress: &strings.Builder{}},
				Embedding: EmbeddingConfig{Embedder: hashembed.New(64)},
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = eng.Close() })
			r := rand.New(rand.NewPCG(3, 5))
			vocab := strings.Fields("harbour crane lantern meadow quartz violin glacier saddle")
			words := map[string][]string{}
			for range 40 {
				var ws []string
				for range 1 + r.IntN(3) {
					ws = append(ws, vocab[r.IntN(len(vocab))])
				}
				res, err := eng.Store(ctx, StoreRequest{ThreadID: "w", Source: "agent", Text: strings.Join(ws, " ") + " and other words"})
				if err != nil {
					t.Fatal(err)
				}
				words[res.ContextID] = ws
			}
			widened, empty := 0, 0
			for range 40 {
				a, b := vocab[r.IntN(len(vocab))], vocab[r.IntN(len(vocab))]
				if a == b {
					continue
				}
				var want, both []string
				for id, ws := range words {
					if slices.Contains(ws, a) && slices.Contains(ws, b) {
						both = append(both, id)
					}
				}
				for id, ws := range words {
					if len(both) == 0 {
						break // nothing holds both: the leg stays empty
					}
					if slices.Contains(ws, a) || slices.Contains(ws, b) {
						want = append(want, id)
					}
				}
				resp, err := eng.HybridSearch(ctx, HybridSearchRequest{Query: a + " " + b, Limit: 50, ExplainQuery: true})
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, h := range resp.Results {
					if h.Scores.FTSRank != nil {
						got = append(got, h.ID)
					}
				}
				slices.Sort(got)
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Fatalf("%q: the full-text leg ranked %d entries, %d hold either word (%d both)", a+" "+b, len(got), len(want), len(both))
				}
				mode := "match"
				if len(want) > len(both) {
					mode = "boolean"
					widened++
				}
				if len(both) == 0 {
					empty++
				}
				if resp.Stats == nil || resp.Stats.AdaptiveFTSMode != mode {
					t.Fatalf("%q: adaptive_fts_mode %+v, want %s (%d of %d entries hold both words)", a+" "+b, resp.Stats, mode, len(both), len(want))
				}
			}
			if widened == 0 || empty == 0 {
				t.Fatalf("%d queries widened, %d matched nothing: the history tests neither case", widened, empty)
			}
		})
	}
}
