package contextd

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/contextd/contextd/index/outline"
	"github.com/contextd/contextd/persist"
)

// Generation runs before the write transaction (R-015, C.11): every
// artifact of an entry that needs a model is produced first, so a provider
// failure stores nothing and a transaction never waits on a model. Legs
// that must succeed (the flat summary today; embeddings join as another
// leg) run concurrently and their failures are reported together; node
// summaries start after the flat summary and never abort.

// summaryOutcome says what happened to the flat summary of an entry.
type summaryOutcome int

const (
	summaryNone      summaryOutcome = iota // no summarizer, or nothing to do
	summaryGenerated                       // a non-empty summary was produced
	summaryEmpty                           // skipped (too short) or empty output
	summaryReused                          // the dedup candidate's summary is kept
)

// generation holds the generated artifacts of one entry.
type generation struct {
	summary string
	outcome summaryOutcome
	// nodes replace the entry's node summaries when replaceNodes is set.
	nodes        []persist.NodeSummary
	replaceNodes bool
	// emb holds the chunk vectors of the text; nil when no embedder ran
	// (none configured, or the deduplication candidate's are reused).
	emb    *persist.Embeddings
	embHit embeddingOutcome
}

// genJob asks for the artifacts of one text.
type genJob struct {
	text, source string
	// reuseSummary skips the summary leg: a deduplication merge will keep
	// the candidate's summary (C.6).
	reuseSummary bool
	// reuseEmbedding skips the embedding leg: a deduplication merge will
	// keep the candidate's vectors of the same text (C.6).
	reuseEmbedding bool
	// update marks a text change of an existing entry: a total node-summary
	// failure then clears the stale rows instead of leaving them.
	update bool
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
	return newErr(ErrGeneration, "Generation failed after exhausting configured retries: %s", strings.Join(parts, "; "))
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

// generator bounds concurrent model calls of the engine.
type generator struct {
	sem chan struct{} // SUMMARY_MAX_CONCURRENT, shared with node summaries
}

func newGenerator(cfg Config) *generator {
	n := cfg.Summary.MaxConcurrent
	if n <= 0 {
		n = 2
	}
	return &generator{sem: make(chan struct{}, n)}
}

func (e *Engine) summarize(ctx context.Context, prompt, text string) (string, error) {
	select {
	case e.gen.sem <- struct{}{}:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	defer func() { <-e.gen.sem }()
	s, err := e.cfg.Summary.Summarizer.Summarize(ctx, prompt, text)
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
	return pyStrip(s)
}

// generate produces the artifacts of one entry.
func (e *Engine) generate(ctx context.Context, job genJob) (*generation, error) {
	g := &generation{}
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
	case e.embedder() == nil:
	case job.reuseEmbedding:
		g.embHit = embeddingReused
	default:
		wg.Add(1)
		go func() {
			defer wg.Done()
			emb, err := e.embedText(ctx, job.text)
			if err != nil {
				fail("embedding", err)
				return
			}
			g.emb, g.embHit = emb, embeddingGenerated
		}()
	}
	if e.cfg.Summary.Summarizer == nil {
		wg.Wait()
		if len(legs) > 0 {
			return nil, generationFailed(legs)
		}
		g.replaceNodes = job.update // the text changed: stale node rows go
		return g, nil
	}
	// The summary leg.
	wg.Add(1)
	go func() {
		defer wg.Done()
		switch {
		case job.reuseSummary:
			g.outcome = summaryReused
		case utf8.RuneCountInString(job.text) < e.cfg.Summary.minLength():
			g.outcome = summaryEmpty
		default:
			s, err := e.summarize(ctx, e.summaryPrompt(job.source), job.text)
			if err != nil {
				fail("summary", err)
				return
			}
			g.summary, g.outcome = s, summaryGenerated
			if s == "" {
				g.outcome = summaryEmpty
			}
		}
	}()
	wg.Wait()
	if len(legs) > 0 {
		return nil, generationFailed(legs)
	}
	if job.reuseSummary {
		return g, nil // same text as the candidate: its node summaries stand
	}
	if e.cfg.IndexTree.enabled() {
		g.nodes, g.replaceNodes = e.generateNodes(ctx, job)
	} else if job.update {
		g.replaceNodes = true // the text changed: stale rows go
	}
	return g, nil
}

// generateNodes summarizes the qualifying sections of the text. It
// reports replace=false only when every attempted node failed on a new
// entry, which leaves existing rows alone.
func (e *Engine) generateNodes(ctx context.Context, job genJob) ([]persist.NodeSummary, bool) {
	cfg := e.cfg.IndexTree.withDefaults()
	o := outline.Parse(job.text)
	var cands []outline.Heading
	for _, h := range o.Headings {
		if h.End-h.Start >= *cfg.MinContentLength {
			cands = append(cands, h)
		}
	}
	if len(cands) == 0 {
		return nil, true
	}
	// Shallowest first, then longest, up to the cap.
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].Level != cands[j].Level {
			return cands[i].Level < cands[j].Level
		}
		return cands[i].End-cands[i].Start > cands[j].End-cands[j].Start
	})
	if len(cands) > cfg.MaxNodes {
		cands = cands[:cfg.MaxNodes]
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.TotalTimeout)
	defer cancel()
	prompt := cfg.Prompt
	if prompt == "" {
		prompt = nodeSummaryPrompt
	}
	out := make([]*persist.NodeSummary, len(cands))
	limit := make(chan struct{}, cfg.MaxConcurrent)
	var wg sync.WaitGroup
	for i, h := range cands {
		wg.Add(1)
		go func() {
			defer wg.Done()
			limit <- struct{}{}
			defer func() { <-limit }()
			nctx, ncancel := context.WithTimeout(ctx, cfg.Timeout)
			defer ncancel()
			s, err := e.summarize(nctx, prompt, o.Lines.Slice(h.Start, h.End))
			if err != nil || s == "" {
				return
			}
			out[i] = &persist.NodeSummary{NodeID: h.ID, Start: h.Start, End: h.End, Summary: s}
		}()
	}
	wg.Wait()
	var nodes []persist.NodeSummary
	for _, n := range out {
		if n != nil {
			nodes = append(nodes, *n)
		}
	}
	if len(nodes) == 0 && !job.update {
		return nil, false
	}
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].Start < nodes[j].Start })
	return nodes, true
}

// writeNodes stores the node summaries of g for entry id inside tx.
func writeNodes(ctx context.Context, tx persist.Tx, id string, g *generation) error {
	if g == nil || !g.replaceNodes {
		return nil
	}
	return tx.ReplaceNodeSummaries(ctx, id, g.nodes)
}

// errRegenerate rolls back a store whose pre-checked deduplication merge
// did not happen in the transaction: the skipped summary must be generated
// after all (C.6), never stored missing.
var errRegenerate = errors.New("deduplication candidate changed; regenerate")

// generateStore runs generation for a prepared store. With precheck, a
// merge into a candidate that already has a summary reuses it.
func (e *Engine) generateStore(ctx context.Context, p Principal, acc persist.Access, ps *preparedStore, precheck bool) error {
	job := genJob{text: ps.text, source: ps.source}
	if precheck && ps.dedup && (e.cfg.Summary.Summarizer != nil || e.embedder() != nil) {
		cand, interleaved, err := e.st.DedupCandidate(ctx, acc, ps.threadID, ps.source)
		if err != nil {
			return fmt.Errorf("deduplication pre-check: %w", err)
		}
		if cand != nil && !interleaved && cand.Owner == p.ID && sameText(cand, ps) {
			job.reuseSummary = e.cfg.Summary.Summarizer != nil && pyStrip(cand.Summary) != ""
			if e.embedder() != nil {
				if job.reuseEmbedding, err = e.hasEmbeddings(ctx, cand.ID); err != nil {
					return fmt.Errorf("deduplication pre-check: %w", err)
				}
			}
		}
	}
	g, err := e.generate(ctx, job)
	if err != nil {
		return err
	}
	ps.gen = g
	return nil
}

// storeParts is the parenthesized part of a store message.
func storeParts(g *generation, out storeOutcome) string {
	if g == nil {
		return ""
	}
	var parts []string
	if g.embHit == embeddingGenerated {
		if out.embStored {
			parts = append(parts, "embedding generated")
		} else {
			parts = append(parts, "embedding generated but not stored - duplicate")
		}
	}
	switch {
	case g.outcome == summaryGenerated:
		parts = append(parts, "summary generated")
	case g.outcome == summaryReused && out.merged:
		parts = append(parts, "summary preserved")
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// generateUpdate runs generation for an update that changes the text.
func (e *Engine) generateUpdate(ctx context.Context, acc persist.Access, pu *preparedUpdate) error {
	if pu.text == nil {
		return nil
	}
	source := "user"
	if e.cfg.Summary.Summarizer != nil {
		ents, err := e.st.Get(ctx, acc, []string{pu.id}, persist.GetOptions{})
		if err != nil {
			return fmt.Errorf("load entry: %w", err)
		}
		if len(ents) == 1 {
			source = ents[0].Source
		}
	}
	g, err := e.generate(ctx, genJob{text: *pu.text, source: source, update: true})
	if err != nil {
		return err
	}
	pu.gen = g
	return nil
}

// updateParts is the parenthesized part of an update message.
func updateParts(g *generation) string {
	if g == nil {
		return ""
	}
	var parts []string
	if g.embHit == embeddingGenerated {
		parts = append(parts, "embedding regenerated")
	}
	switch g.outcome {
	case summaryGenerated:
		parts = append(parts, "summary regenerated")
	case summaryEmpty:
		parts = append(parts, "summary cleared")
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}
