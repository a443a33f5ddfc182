package generate

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/index/pyfmt"
	"github.com/contextd/contextd/internal/compress"
	"github.com/contextd/contextd/model"
	"github.com/contextd/contextd/persist"
)

// Generation runs before the write transaction (R-015, C.11): every
// artifact of an entry that needs a model is produced first, so a provider
// failure stores nothing and a transaction never waits on a model. Legs
// that must succeed (the flat summary today; embeddings join as another
// leg) run concurrently and their failures are reported together; node
// summaries start after the flat summary and never abort.

// Embedder and Summarizer are the model interfaces generation consumes.
type (
	Embedder   = model.Embedder
	Summarizer = model.Summarizer
)

// Options configure a Generator. The zero value generates nothing.
type Options struct {
	Summary   SummaryOptions
	Nodes     NodeOptions
	Embedding EmbeddingOptions
	// TextBudget bounds the bytes of text generated at once over all
	// calls (budget.go); 0 means DefaultTextBudget.
	TextBudget int64
}

// Generator produces the model artifacts of entries and bounds the
// concurrent model calls of one engine. It is safe for concurrent use.
type Generator struct {
	opts     Options
	sumSem   chan struct{} // SUMMARY_MAX_CONCURRENT, shared with node summaries
	embedSem chan struct{} // EMBEDDING_MAX_CONCURRENT
	budget   *textBudget   // bytes of text generated at once
	codec    *compress.Codec
	codecErr error       // reported by CheckModel
	checked  atomic.Bool // CheckModel confirmed the provenance
}

// New returns a Generator for opts.
func New(opts Options) *Generator {
	ns := opts.Summary.MaxConcurrent
	if ns <= 0 {
		ns = 2
	}
	ne := opts.Embedding.MaxConcurrent
	if ne <= 0 {
		ne = 3
	}
	tb := opts.TextBudget
	if tb <= 0 {
		tb = DefaultTextBudget
	}
	g := &Generator{opts: opts, sumSem: make(chan struct{}, ns), embedSem: make(chan struct{}, ne), budget: newTextBudget(tb)}
	if em := opts.Embedding.Embedder; em != nil {
		g.codec, g.codecErr = compress.New(opts.Embedding.Compression, em.Dim())
	}
	return g
}

// Embedder is the configured embedder, nil when embeddings are off.
func (g *Generator) Embedder() Embedder { return g.opts.Embedding.Embedder }

// Summarizer is the configured summarizer, nil when summaries are off.
func (g *Generator) Summarizer() Summarizer { return g.opts.Summary.Summarizer }

// SummaryOutcome says what happened to the flat summary of an entry.
type SummaryOutcome int

// The summary outcomes.
const (
	SummaryNone      SummaryOutcome = iota // no summarizer, or nothing to do
	SummaryGenerated                       // a non-empty summary was produced
	SummaryEmpty                           // skipped (too short) or empty output
	SummaryReused                          // the dedup candidate's summary is kept
)

// EmbeddingOutcome says what happened to the vectors of an entry.
type EmbeddingOutcome int

// The embedding outcomes.
const (
	EmbeddingNone      EmbeddingOutcome = iota // no embedder
	EmbeddingGenerated                         // vectors were generated
	EmbeddingReused                            // the dedup candidate's vectors are kept
)

// Result holds the generated artifacts of one entry. A nil *Result (no
// generation ran) writes nothing and reports no message parts.
type Result struct {
	Summary string
	Outcome SummaryOutcome
	// Nodes replace the entry's node summaries when ReplaceNodes is set.
	Nodes        []persist.NodeSummary
	ReplaceNodes bool
	// Emb holds the chunk vectors of the text; nil when no embedder ran
	// (none configured, or the deduplication candidate's are reused).
	Emb    *persist.Embeddings
	EmbHit EmbeddingOutcome
}

// Job asks for the artifacts of one text.
type Job struct {
	Text, Source string
	// ReuseSummary skips the summary leg: a deduplication merge will keep
	// the candidate's summary (C.6).
	ReuseSummary bool
	// ReuseEmbedding skips the embedding leg: a deduplication merge will
	// keep the candidate's vectors of the same text (C.6).
	ReuseEmbedding bool
	// Update marks a text change of an existing entry: a total node-summary
	// failure then clears the stale rows instead of leaving them.
	Update bool
}

// legError is the failure of one mandatory leg.
type legError struct {
	leg string
	err error
}

// generationFailed is the documented abort error naming every failed leg.
func generationFailed(legs []legError) error {
	sort.Slice(legs, func(i, j int) bool { return legOrder(legs[i].leg) < legOrder(legs[j].leg) })
	parts := make([]string, len(legs))
	for i, l := range legs {
		parts[i] = fmt.Sprintf("%s: %s: %s", l.leg, errTypeName(l.err), l.err.Error())
	}
	return cerrors.New(cerrors.ErrGeneration, "Generation failed after exhausting configured retries: %s", strings.Join(parts, "; "))
}

func legOrder(leg string) int {
	if leg == "embedding" {
		return 0
	}
	return 1
}

// errTypeName names the concrete type of err the way the reference message
// names an exception class: the innermost wrapped type, without package.
func errTypeName(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			break
		}
		err = next
	}
	t := reflect.TypeOf(err)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Name() == "" || t.Name() == "errorString" {
		return "Error"
	}
	return t.Name()
}

func (g *Generator) summarize(ctx context.Context, prompt, text string) (string, error) {
	select {
	case g.sumSem <- struct{}{}:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	defer func() { <-g.sumSem }()
	s, err := g.opts.Summary.Summarizer.Summarize(ctx, prompt, text)
	if err != nil {
		return "", err
	}
	return repairText(s), nil
}

// repairText strips NUL and replaces invalid UTF-8 in model output, which
// is repaired rather than rejected.
func repairText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.ReplaceAll(s, "\x00", "")
	return pyfmt.Strip(s)
}

// Generate produces the artifacts of one entry. When a mandatory leg
// fails, the error (cerrors.ErrGeneration) names every failed leg.
func (g *Generator) Generate(ctx context.Context, job Job) (*Result, error) {
	if g.Embedder() != nil || g.Summarizer() != nil {
		n, err := g.budget.acquire(ctx, int64(len(job.Text)))
		if err != nil {
			return nil, err
		}
		defer g.budget.release(n)
	}
	r := &Result{}
	var (
		mu   sync.Mutex
		legs []legError
		wg   sync.WaitGroup
	)
	fail := func(leg string, err error) {
		mu.Lock()
		legs = append(legs, legError{leg, err})
		mu.Unlock()
	}
	switch {
	case g.Embedder() == nil:
	case job.ReuseEmbedding:
		r.EmbHit = EmbeddingReused
	default:
		wg.Add(1)
		go func() {
			defer wg.Done()
			emb, err := g.EmbedText(ctx, job.Text)
			if err != nil {
				fail("embedding", err)
				return
			}
			r.Emb, r.EmbHit = emb, EmbeddingGenerated
		}()
	}
	if g.Summarizer() == nil {
		wg.Wait()
		if len(legs) > 0 {
			return nil, generationFailed(legs)
		}
		r.ReplaceNodes = job.Update // the text changed: stale node rows go
		return r, nil
	}
	// The summary leg.
	wg.Add(1)
	go func() {
		defer wg.Done()
		switch {
		case job.ReuseSummary:
			r.Outcome = SummaryReused
		case utf8.RuneCountInString(job.Text) < g.opts.Summary.MinLength():
			r.Outcome = SummaryEmpty
		default:
			s, err := g.summarize(ctx, g.summaryPrompt(job.Source), job.Text)
			if err != nil {
				fail("summary", err)
				return
			}
			r.Summary, r.Outcome = s, SummaryGenerated
			if s == "" {
				r.Outcome = SummaryEmpty
			}
		}
	}()
	wg.Wait()
	if len(legs) > 0 {
		return nil, generationFailed(legs)
	}
	if job.ReuseSummary {
		return r, nil // same text as the candidate: its node summaries stand
	}
	if !g.opts.Nodes.Disabled {
		r.Nodes, r.ReplaceNodes = g.generateNodes(ctx, job)
	} else if job.Update {
		r.ReplaceNodes = true // the text changed: stale rows go
	}
	return r, nil
}

// Reuse marks the legs of job whose artifacts the deduplication candidate
// cand already holds for the same text (C.6): its non-empty summary, and
// its stored vectors (read from st). The caller has checked that a merge
// into cand is due.
func (g *Generator) Reuse(ctx context.Context, st VectorReader, job Job, cand *persist.Entry) (Job, error) {
	job.ReuseSummary = g.Summarizer() != nil && pyfmt.Strip(cand.Summary) != ""
	if g.Embedder() != nil {
		var err error
		if job.ReuseEmbedding, err = hasEmbeddings(ctx, st, cand.ID); err != nil {
			return job, err
		}
	}
	return job, nil
}
