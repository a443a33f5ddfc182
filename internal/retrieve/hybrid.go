package retrieve

import (
	"context"
	"errors"
	"fmt"
	"github.com/contextd/contextd/api"
	"slices"
	"time"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/internal/rank"
	"github.com/contextd/contextd/internal/request"
	"github.com/contextd/contextd/internal/search"
	"github.com/contextd/contextd/persist"
)

// Hybrid search (C.8): the full-text and the semantic leg each rank
// 100·HYBRID_RRF_OVERFETCH candidates at offset 0, in parallel; reciprocal
// rank fusion keeps the best 100 (rrf DESC, id ASC), the reranker reorders
// them, and the page is cut from that one ordering (internal/rank). A
// failing leg leaves the other's results with a warning.

// Search modes of hybrid search, in the order they run and are reported.
const (
	ModeFTS      = "fts"
	ModeSemantic = "semantic"
)

// HybridQuery is a validated hybrid_search_context request.
type HybridQuery struct {
	Text   string
	Filter *request.Filter
	// Problem is the filter's validation failure: every available leg
	// fails it, and the answer says so.
	Problem *request.Problem
	Window  rank.Window
	Config  rank.Hybrid // with defaults
	Method  string      // the fusion method
	K       int         // its RRF k
	// Modes are the available modes (ModeFTS, ModeSemantic), at least one.
	Modes           []string
	Images, Explain bool
	Start           time.Time // when the request arrived, for execution_time_ms
}

// HybridScores are the scores of one hybrid result.
type HybridScores = api.HybridScores

// LegStats are the statistics of one hybrid leg.
type LegStats = api.LegStats

// HybridStats are the explain_query statistics of a hybrid search.
type HybridStats = api.HybridStats

// HybridAnswer is a hybrid search's page and what it did. A filter or
// query that fails validation is not an error: Error and
// ValidationErrors say what was wrong.
type HybridAnswer struct {
	Hits                    []Hit[HybridScores]
	ModesUsed               []string // never nil
	FTSCount, SemanticCount int
	Stats                   *HybridStats // with Explain only
	Warnings                []string
	// Causes are the failures behind the warnings, for the server's log.
	Causes           []error
	Error            string
	ValidationErrors []string
}

// Hybrid runs a hybrid search as acc.
func (s *Searcher) Hybrid(ctx context.Context, acc persist.Access, q HybridQuery) (*HybridAnswer, error) {
	a := &HybridAnswer{ModesUsed: []string{}}
	modes, ok := a.validate(q)
	if !ok || q.Window.Empty() || request.BlankQuery(q.Text) {
		return a, nil // answered from the arguments alone
	}
	legDepth := q.Config.LegDepth()
	ftsQuery, ftsMode, significant := rank.AdaptiveQuery(q.Text, q.Config.ORThreshold)
	lr := s.runLegs(ctx, acc, q, modes, ftsQuery, ftsMode, legDepth)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if significant > 1 {
		ftsMode = s.widen(ctx, acc, q, modes, &lr, ftsMode, legDepth)
	}
	if err := a.degrade(modes, lr); err != nil {
		return nil, err
	}
	a.FTSCount, a.SemanticCount = len(lr.Text), len(lr.Vectors)
	th := textHits(lr.Text)
	var ev rank.Evidence
	if q.Method != rank.FusionRRF && len(lr.Vectors) > 0 {
		// The convex fusion's weights follow what the full-text leg found
		// (rank.AdaptiveWeight).
		ev = rank.EvidenceOf(th)
	}
	fused, fs := q.Config.FuseAdaptive(q.Method, q.K, ev, th, vectorHits(lr.Vectors))
	rb := time.Now()
	ranked, reranked, err := s.reranking(acc).Rerank(ctx, q.Text, fused, s.texts(acc))
	if err != nil {
		return nil, fmt.Errorf("hybrid search: %w", err)
	}
	rerankMS := MS(time.Since(rb))
	var terms []string
	if len(th) > 0 {
		terms = th[0].Terms
	}
	a.Hits, err = hydrate(ctx, s, acc, rank.Cut(ranked, q.Window), q.Images, terms, func(_ *persist.Entry, c rank.Candidate) HybridScores {
		return hybridScores(c, reranked)
	})
	if err != nil {
		return nil, fmt.Errorf("hybrid search: %w", err)
	}
	if q.Explain {
		st := &HybridStats{
			ExecutionTimeMS: MS(time.Since(q.Start)), FusionStats: api.FusionStats(fs), FiltersApplied: q.Filter.Applied,
			Reranked: reranked, RerankMS: rerankMS, Backend: s.Store.Backend(), RowsReturned: len(a.Hits),
			CandidatesFused: len(fused), CandidateDepth: rank.Depth, OverfetchPerLeg: legDepth,
			ORThreshold: q.Config.ORThreshold, SignificantTerms: significant,
		}
		s.legStats(st, lr, modes, ftsMode)
		a.Stats = st
	}
	return a, nil
}

// validate reports a filter problem, which every available leg fails
// and a query full-text search cannot parse, which fails the FTS
// leg alone: the semantic leg still runs. It returns the modes
// left to run and whether any is.
func (a *HybridAnswer) validate(q HybridQuery) ([]string, bool) {
	modes := q.Modes
	if q.Problem != nil {
		parts := make([]string, len(modes))
		for i, m := range modes {
			parts[i] = legName(m) + ": " + q.Problem.Message
		}
		a.Error = "All available search modes failed. " + request.JoinSentences(parts)
		a.ValidationErrors = slices.Compact(slices.Clone(q.Problem.Errors))
		return nil, false
	}
	if qp := request.FullTextQueryProblem(q.Text); qp != nil && slices.Contains(modes, ModeFTS) {
		modes = slices.DeleteFunc(slices.Clone(modes), func(m string) bool { return m == ModeFTS })
		a.ValidationErrors = qp.Errors
		if len(modes) == 0 {
			a.Error = "All available search modes failed. FTS: " + qp.Message
			return nil, false
		}
		a.Warnings = append(a.Warnings, "FTS sub-search failed; results may be based on semantic search only. FTS: "+qp.Message)
	}
	return modes, true
}

// runLegs runs the legs of modes concurrently.
func (s *Searcher) runLegs(ctx context.Context, acc persist.Access, q HybridQuery, modes []string, ftsQuery, ftsMode string, depth int) search.LegResults {
	// Native full-text hits take reranker passages from the engine's own
	// highlight; in-process ones compute them from the text.
	highlight := s.Rerank.Reranker != nil && s.FTS.NativeHighlights()
	legs := search.Legs{FullText: s.FTS}
	if slices.Contains(modes, ModeFTS) {
		legs.Text = &search.FullTextQuery{Filter: q.Filter.Filter, Text: ftsQuery, Mode: ftsMode, Depth: depth, Highlight: highlight, Explain: q.Explain, Matched: rank.EvidenceHits}
	}
	if slices.Contains(modes, ModeSemantic) {
		legs.Vectors, legs.Vector = s.Vectors, &search.VectorQuery{Filter: q.Filter.Filter, Depth: depth, Explain: q.Explain}
		legs.Embed = func(ctx context.Context) ([]float32, error) { return s.Embed(ctx, q.Text) }
	}
	return legs.Run(ctx, acc)
}

// widen runs a short query's full-text leg again as the OR of its terms
// when the AND of them (match mode) found some candidates but fewer than
// the leg's depth, and keeps the OR ranking, which holds every AND hit: a
// short question names a few words of its answer, and the answer need
// not hold them all as the AND reads them (the code set's "sync.Once Do
// function": the AND leg found 5 files, not sync/once.go, which OR-ed
// full text ranks first). On the code set hybrid's MRR@10 went from
// 0.673 to 0.723 on the checking half (OR-ed full text 0.699) and stayed
// 0.638 on the choosing one; the documentation set did not move. An AND
// leg that found nothing is kept: no entry holds every word, which is how
// a paraphrase reads ("hard drive failure" against a memory about a
// crashed disk), and widening it let entries sharing one of its words
// outrank the semantic leg's answer (paraphrase set, held-out top-5 0.267
// -> 0.233; development unchanged). An AND leg that fills its depth is
// kept too, so a large collection pays no second query for common
// words. It returns the mode the leg's hits were ranked by.
func (s *Searcher) widen(ctx context.Context, acc persist.Access, q HybridQuery, modes []string, lr *search.LegResults, mode string, depth int) string {
	if mode != persist.FullTextMatch || !slices.Contains(modes, ModeFTS) || lr.TextLeg.Err != nil || len(lr.Text) == 0 || len(lr.Text) >= depth {
		return mode
	}
	or := rank.ORQuery(q.Text)
	if or == "" {
		return mode
	}
	began := time.Now()
	highlight := s.Rerank.Reranker != nil && s.FTS.NativeHighlights()
	hits, plan, err := s.FTS.Rank(ctx, acc, search.FullTextQuery{Filter: q.Filter.Filter, Text: or, Mode: persist.FullTextBoolean, Depth: depth, Highlight: highlight, Explain: q.Explain, Matched: rank.EvidenceHits})
	lr.TextLeg.Elapsed += time.Since(began)
	if err != nil || len(hits) <= len(lr.Text) {
		return mode // the AND ranking stands
	}
	lr.Text, lr.TextLeg.Plan = hits, plan
	return persist.FullTextBoolean
}

// degrade turns a failed leg into a warning; when no leg answered, the
// search fails with every leg's reason.
func (a *HybridAnswer) degrade(modes []string, lr search.LegResults) error {
	ftsErr, semErr := lr.TextLeg.Err, lr.VectorLeg.Err
	var used []string
	if slices.Contains(modes, ModeFTS) {
		if ftsErr != nil {
			a.Warnings = append(a.Warnings, "FTS sub-search failed; results may be based on semantic search only. FTS: "+publicMessage(ftsErr))
			a.Causes = append(a.Causes, ftsErr)
		} else {
			used = append(used, ModeFTS)
		}
	}
	if slices.Contains(modes, ModeSemantic) {
		if semErr != nil {
			a.Warnings = append(a.Warnings, "Semantic sub-search failed; results may be based on FTS only. Semantic: "+publicMessage(semErr))
			a.Causes = append(a.Causes, semErr)
		} else {
			used = append(used, ModeSemantic)
		}
	}
	if len(used) > 0 {
		a.ModesUsed = used
		return nil
	}
	var parts []string
	if a.ValidationErrors != nil {
		parts = append(parts, "FTS: FTS query validation failed")
	}
	if ftsErr != nil {
		parts = append(parts, "FTS: "+publicMessage(ftsErr))
	}
	if semErr != nil {
		parts = append(parts, "Semantic: "+publicMessage(semErr))
	}
	return cerrors.New(cerrors.ErrUnavailable, "All available search modes failed. %s", request.JoinSentences(parts))
}

// hybridScores are a fused candidate's scores.
func hybridScores(c rank.Candidate, reranked bool) HybridScores {
	sc := HybridScores{RRF: c.RRF}
	if c.Text != nil {
		fr, score := c.TextRank, c.Text.Score
		sc.FTSRank, sc.FTSScore = &fr, &score
	}
	if c.Vector != nil {
		sr, d := c.VectorRank, c.Vector.Distance
		sc.SemanticRank, sc.SemanticDistance = &sr, &d
	}
	if reranked {
		r := c.Rerank
		sc.RerankScore = &r
	}
	return sc
}

// legStats adds the legs of modes to the explain statistics.
func (s *Searcher) legStats(st *HybridStats, lr search.LegResults, modes []string, ftsMode string) {
	if slices.Contains(modes, ModeFTS) {
		ls := legStats(lr.TextLeg, len(lr.Text))
		st.FTSStats, st.AdaptiveFTSMode = &ls, ftsMode
	}
	if slices.Contains(modes, ModeSemantic) {
		ls := legStats(lr.VectorLeg, len(lr.Vectors))
		st.SemanticStats = &ls
	}
	if s.VectorBackend != "" {
		st.SearchBackend = s.VectorBackend
	} else {
		st.SearchBackend = s.FTS.Backend()
	}
}

// legStats reports one leg in the explain statistics.
func legStats(l search.Leg, candidates int) LegStats {
	if l.Err != nil && l.Elapsed == 0 {
		return LegStats{} // failed before it searched
	}
	st := LegStats{ExecutionTimeMS: MS(l.Elapsed), Candidates: candidates}
	if l.Embedded {
		em := MS(l.Embed)
		st.EmbeddingGenerationMS = &em
	}
	if l.Plan != "" {
		st.QueryPlan = &l.Plan
	}
	return st
}

func legName(mode string) string {
	if mode == ModeFTS {
		return "FTS"
	}
	return "Semantic"
}

// publicMessage is what a warning says of a failed leg: the message of an
// engine error; anything else (a driver's or a package's text) is not for
// the caller, who learns only that something unexpected failed.
func publicMessage(err error) string {
	var ee *cerrors.Error
	switch {
	case errors.As(err, &ee):
		return ee.Msg
	case errors.Is(err, context.Canceled):
		return "the request was cancelled"
	case errors.Is(err, context.DeadlineExceeded):
		return "the request timed out"
	case errors.Is(err, cerrors.ErrDatabaseUnavailable):
		return cerrors.UnavailableText
	}
	return cerrors.UnexpectedText
}
