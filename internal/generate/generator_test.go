package generate

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/quant"
)

// peak tracks the most calls in flight at once.
type peak struct {
	mu       sync.Mutex
	cur, max int
}

func (p *peak) enter() {
	p.mu.Lock()
	p.cur++
	p.max = max(p.max, p.cur)
	p.mu.Unlock()
	time.Sleep(2 * time.Millisecond) // not a wait: each call lasts a while, so concurrent ones overlap and the peak counts them
}

func (p *peak) leave() {
	p.mu.Lock()
	p.cur--
	p.mu.Unlock()
}

type fakeEmbedder struct {
	peak
	dim int
	err error
}

func (f *fakeEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	f.enter()
	defer f.leave()
	if f.err != nil {
		return nil, f.err
	}
	out := make([][]float32, len(texts))
	for i := range texts {
		out[i] = make([]float32, f.dim)
		out[i][0] = 1
	}
	return out, nil
}
func (f *fakeEmbedder) Dim() int      { return f.dim }
func (f *fakeEmbedder) Model() string { return "fake" }

type fakeSummarizer struct {
	peak
	out string
	err error
}

func (f *fakeSummarizer) Summarize(_ context.Context, prompt, text string) (string, error) {
	f.enter()
	defer f.leave()
	return f.out, f.err
}

func intp(n int) *int { return &n }

func TestGenerateOutcomes(t *testing.T) {
	ctx := context.Background()
	sum := &fakeSummarizer{out: " a summary\x00 "}
	g := New(Options{
		Summary:   SummaryOptions{Summarizer: sum, MinContentLength: intp(10)},
		Embedding: EmbeddingOptions{Embedder: &fakeEmbedder{dim: 4}},
	})
	r, err := g.Generate(ctx, Job{Text: "long enough text", Source: "user"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome != SummaryGenerated || r.Summary != "a summary" || r.EmbHit != EmbeddingGenerated || r.Emb == nil || len(r.Emb.Chunks) != 1 {
		t.Fatalf("generated: %+v", r)
	}
	if !r.ReplaceNodes || len(r.Nodes) != 0 || r.Reuses() {
		t.Fatalf("a text without sections has no node summaries: %+v", r)
	}
	r, err = g.Generate(ctx, Job{Text: "short", Update: true})
	if err != nil || r.Outcome != SummaryEmpty || !r.ReplaceNodes {
		t.Fatalf("short update: %+v, %v", r, err)
	}
	r, err = g.Generate(ctx, Job{Text: "long enough text", ReuseSummary: true, ReuseEmbedding: true})
	if err != nil || r.Outcome != SummaryReused || r.EmbHit != EmbeddingReused || r.Emb != nil || !r.Reuses() {
		t.Fatalf("reused: %+v, %v", r, err)
	}
	r, err = New(Options{}).Generate(ctx, Job{Text: "text", Update: true})
	if err != nil || r.Outcome != SummaryNone || r.EmbHit != EmbeddingNone || !r.ReplaceNodes {
		t.Fatalf("no models: %+v, %v", r, err)
	}
}

func TestGenerateReportsEveryFailedLeg(t *testing.T) {
	g := New(Options{
		Summary:   SummaryOptions{Summarizer: &fakeSummarizer{err: errors.New("summary down")}, MinContentLength: intp(0)},
		Embedding: EmbeddingOptions{Embedder: &fakeEmbedder{dim: 4, err: errors.New("embed down")}},
	})
	_, err := g.Generate(context.Background(), Job{Text: "text"})
	// The chunk errors are joined: the class name is the join's, as before.
	want := "Generation failed after exhausting configured retries: embedding: joinError: embed down; summary: Error: summary down"
	if err == nil || err.Error() != want || !errors.Is(err, cerrors.ErrGeneration) {
		t.Fatalf("err = %v, want %q", err, want)
	}
	// A wrong vector is a failed leg too.
	g = New(Options{Embedding: EmbeddingOptions{Embedder: badDim{}}})
	if _, err := g.Generate(context.Background(), Job{Text: "text"}); err == nil || !strings.Contains(err.Error(), "embedding has 2 dimensions, expected 3") {
		t.Fatalf("err = %v", err)
	}
}

type badDim struct{}

func (badDim) Embed(_ context.Context, texts []string) ([][]float32, error) {
	return [][]float32{{1, 2}}, nil
}
func (badDim) Dim() int      { return 3 }
func (badDim) Model() string { return "bad" }

func TestEmbeddingConcurrencyBound(t *testing.T) {
	em := &fakeEmbedder{dim: 4}
	g := New(Options{Embedding: EmbeddingOptions{Embedder: em, MaxConcurrent: 2, ChunkSize: 100, ChunkOverlap: 0}})
	text := strings.Repeat("word ", 400) // 2000 code points: 20 chunks
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			if emb, err := g.EmbedText(context.Background(), text); err != nil || len(emb.Chunks) < 10 {
				t.Errorf("EmbedText: %v", err)
			}
		}()
		go func() {
			defer wg.Done()
			if _, err := g.EmbedQuery(context.Background(), "query"); err != nil {
				t.Errorf("EmbedQuery: %v", err)
			}
		}()
	}
	wg.Wait()
	if em.max != 2 {
		t.Fatalf("peak of %d embedding calls, want the bound 2", em.max)
	}
}

func TestSummaryConcurrencySharedWithNodes(t *testing.T) {
	sum := &fakeSummarizer{out: "s"}
	g := New(Options{
		Summary: SummaryOptions{Summarizer: sum, MinContentLength: intp(0), MaxConcurrent: 1},
		Nodes:   NodeOptions{MinContentLength: intp(1), MaxConcurrent: 4},
	})
	text := "# A\nalpha text\n# B\nbeta text\n# C\ngamma text\n"
	r, err := g.Generate(context.Background(), Job{Text: text})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Nodes) != 3 || !r.ReplaceNodes || r.Nodes[0].NodeID != "a" {
		t.Fatalf("nodes: %+v", r.Nodes)
	}
	if sum.max != 1 {
		t.Fatalf("peak of %d summary calls, want SUMMARY_MAX_CONCURRENT 1", sum.max)
	}
	// Every node failing on a new entry leaves the stored rows alone.
	g = New(Options{Summary: SummaryOptions{Summarizer: &fakeSummarizer{}, MinContentLength: intp(1000)}, Nodes: NodeOptions{MinContentLength: intp(1)}})
	if r, err := g.Generate(context.Background(), Job{Text: text}); err != nil || r.ReplaceNodes {
		t.Fatalf("empty node summaries: %+v, %v", r, err)
	}
}

func TestMessageParts(t *testing.T) {
	gen := &Result{Outcome: SummaryGenerated, EmbHit: EmbeddingGenerated}
	reused := &Result{Outcome: SummaryReused, EmbHit: EmbeddingReused}
	cleared := &Result{Outcome: SummaryEmpty}
	for _, tc := range []struct{ got, want string }{
		{StoreParts(nil, false, false), ""},
		{StoreParts(gen, false, true), " (embedding generated, summary generated)"},
		{StoreParts(gen, true, false), " (embedding generated but not stored - duplicate, summary generated)"},
		{StoreParts(reused, true, false), " (summary preserved)"},
		{StoreParts(reused, false, false), ""},
		{UpdateParts(gen), " (embedding regenerated, summary regenerated)"},
		{UpdateParts(cleared), " (summary cleared)"},
		{UpdateParts(nil), ""},
		{BatchStoreParts([]Stored{{Result: gen, EmbStored: true}, {Result: gen}, {Result: reused, Merged: true}, {}}), " (embeddings generated (1 not stored - duplicates), summaries generated, summaries preserved)"},
		{BatchStoreParts(nil), ""},
		{BatchUpdateParts([]*Result{gen, cleared, nil}), " (embeddings regenerated, summaries regenerated, summaries cleared)"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

type fakeModelStore struct {
	model persist.EmbeddingModel
	ok    bool
	docs  []persist.VectorDoc
	set   *persist.EmbeddingModel
}

func (f *fakeModelStore) EmbeddingModel(context.Context) (persist.EmbeddingModel, bool, error) {
	return f.model, f.ok, nil
}
func (f *fakeModelStore) SetEmbeddingModel(_ context.Context, m persist.EmbeddingModel) error {
	f.set = &m
	return nil
}
func (f *fakeModelStore) ScanVectorDocs(context.Context, string, int) ([]persist.VectorDoc, error) {
	return f.docs, nil
}
func (f *fakeModelStore) VectorDocs(context.Context, []string) ([]persist.VectorDoc, error) {
	return f.docs, nil
}
func (f *fakeModelStore) Compression(context.Context) (persist.Compression, bool, error) {
	return persist.Compression{}, false, nil
}
func (f *fakeModelStore) VectorForms(context.Context) (persist.VectorForms, error) {
	return persist.VectorForms{}, nil
}
func (f *fakeModelStore) HasCodes(context.Context) (bool, error)   { return false, nil }
func (f *fakeModelStore) HasUncoded(context.Context) (bool, error) { return false, nil }
func (f *fakeModelStore) Write(context.Context, func(persist.Tx) error) error {
	return errors.New("the model check with compression off writes nothing")
}

func TestCheckModel(t *testing.T) {
	ctx := context.Background()
	// Compression off: its check is compress's (TestCheck_C14 there).
	g := New(Options{Embedding: EmbeddingOptions{Embedder: &fakeEmbedder{dim: 4}, Compression: quant.Settings{Disabled: true}}})
	st := &fakeModelStore{}
	if err := g.CheckModel(ctx, st); err != nil || st.set == nil || *st.set != (persist.EmbeddingModel{Model: "fake", Dim: 4}) {
		t.Fatalf("first start: %v, recorded %v", err, st.set)
	}
	// Another model recorded, but no vectors: the configured one is recorded.
	st = &fakeModelStore{model: persist.EmbeddingModel{Model: "old", Dim: 8}, ok: true}
	if err := g.CheckModel(ctx, st); err != nil || st.set == nil {
		t.Fatalf("no vectors: %v, recorded %v", err, st.set)
	}
	st = &fakeModelStore{model: persist.EmbeddingModel{Model: "old", Dim: 8}, ok: true, docs: []persist.VectorDoc{{ID: "x"}}}
	err := g.CheckModel(ctx, st)
	want := "embedding model changed: the database holds vectors of old (8 dimensions) but EMBEDDING_MODEL/EMBEDDING_DIM (or EMBEDDING_MODEL_PATH) configure fake (4 dimensions); run `contextd migrate reembed` to regenerate them with the configured model, or configure the recorded one"
	if !errors.Is(err, cerrors.ErrEmbeddingModelChanged) || err.Error() != want || st.set != nil {
		t.Fatalf("err = %v", err)
	}
}

func TestReuse(t *testing.T) {
	ctx := context.Background()
	g := New(Options{
		Summary:   SummaryOptions{Summarizer: &fakeSummarizer{}},
		Embedding: EmbeddingOptions{Embedder: &fakeEmbedder{dim: 4}},
	})
	st := &fakeModelStore{docs: []persist.VectorDoc{{ID: "c", Chunks: []persist.KeyedChunk{{}}}}}
	job, err := g.Reuse(ctx, st, Job{Text: "t"}, &persist.Entry{ID: "c", Summary: " s "})
	if err != nil || !job.ReuseSummary || !job.ReuseEmbedding {
		t.Fatalf("reuse: %+v, %v", job, err)
	}
	job, err = g.Reuse(ctx, &fakeModelStore{}, Job{Text: "t"}, &persist.Entry{ID: "c", Summary: " \x1f"})
	if err != nil || job.ReuseSummary || job.ReuseEmbedding {
		t.Fatalf("nothing to reuse: %+v, %v", job, err)
	}
}
