package contextd

import (
	"context"
	"io"
	"time"

	"github.com/contextd/contextd/internal/rank"
	"github.com/contextd/contextd/internal/request"
	"github.com/contextd/contextd/internal/retrieve"
	"github.com/contextd/contextd/internal/search"
	"github.com/contextd/contextd/persist"
)

// Full-text search backends (SEARCH_BACKEND).
const (
	BackendInProcess = "in-process" // Bleve and our HNSW, following the change log
	BackendNative    = "native"     // the database's own engines (SQLite FTS5, sqlite-vec)
)

// FTSConfig configures full-text search. The zero value serves it with
// the in-process backend in English.
type FTSConfig struct {
	// Disable switches full-text search off (ENABLE_FTS=false).
	Disable bool
	// Backend is SEARCH_BACKEND: "in-process" (default, Bleve) or "native"
	// (the database's own full-text engine, SQLite FTS5).
	Backend string
	// Language is FTS_LANGUAGE (default english).
	Language string
	// IndexDir holds the in-process index snapshot. Default: <DBPath>.index
	// when the engine opens SQLite at a file; in memory otherwise.
	IndexDir string
	// Progress receives index rebuild progress (default os.Stderr).
	Progress io.Writer
}

// openFullText sets up the configured backend (package search). A store
// that cannot serve it leaves full-text search unavailable (the tool says
// so); an invalid configuration is an error.
func (e *Engine) openFullText(ctx context.Context) error {
	c := e.cfg.FTS
	dir := c.IndexDir
	if dir == "" && e.indexPath != "" {
		dir = e.indexPath + ".index"
	}
	ft, err := search.OpenFullText(ctx, e.st, e.feed, search.FullTextOptions{
		Disable: c.Disable, Backend: c.Backend, Language: c.Language, Dir: dir, Progress: c.Progress,
	})
	if err != nil {
		return err
	}
	e.fts = ft
	return nil
}

// closeFullText stops the index's applier and closes it.
func (e *Engine) closeFullText() error {
	if e.fts == nil {
		return nil
	}
	return e.fts.Close()
}

// FTSLanguage is the configured FTS_LANGUAGE.
func (e *Engine) FTSLanguage() string { return e.fts.Language() }

// FTSEnabled reports whether full-text search is switched on (ENABLE_FTS
// is not false); FTSAvailable whether it can run.
func (e *Engine) FTSEnabled() bool   { return e.fts.Enabled() }
func (e *Engine) FTSAvailable() bool { return e.fts.Unavailable() == "" }

// RankDepthLimit says that a ranked page reached past the fixed candidate
// depth (C.4).
type RankDepthLimit struct {
	RequestedOffset int `json:"requested_offset"`
	RequestedLimit  int `json:"requested_limit"`
	RankDepth       int `json:"rank_depth"`
}

// FTSSearchRequest is the input of fts_search_context.
type FTSSearchRequest struct {
	SearchFilter
	Query         string `json:"query"`
	Mode          string `json:"mode,omitempty"`  // match (default), prefix, phrase, boolean
	Limit         int    `json:"limit,omitempty"` // 0 means the default (5)
	Offset        int    `json:"offset,omitempty"`
	Highlight     bool   `json:"highlight,omitempty"`
	IncludeImages bool   `json:"include_images,omitempty"`
	ExplainQuery  bool   `json:"explain_query,omitempty"`
}

// FTSScores are the scores of one full-text result: fts_score is BM25
// (higher is better); fts_rank is always null for a standalone search.
type FTSScores struct {
	FTSScore    float64  `json:"fts_score"`
	FTSRank     *int     `json:"fts_rank"`
	RerankScore *float64 `json:"rerank_score,omitempty"`
}

// FTSResult is one fts_search_context result.
type FTSResult struct {
	EntryView
	Scores      FTSScores `json:"scores"`
	Highlighted *string   `json:"highlighted,omitempty"`
	Passage     *Passage  `json:"passage"`
}

// FTSSearchResponse is the result of fts_search_context. A filter or query
// that fails validation is not an error: Error and ValidationErrors say
// what was wrong.
type FTSSearchResponse struct {
	Query            string          `json:"query"`
	Mode             string          `json:"mode"`
	Results          []FTSResult     `json:"results"`
	Count            int             `json:"count"`
	Language         string          `json:"language"`
	Stats            *SearchStats    `json:"stats,omitempty"`
	ClampedLimit     *ClampedLimit   `json:"clamped_limit,omitempty"`
	RankDepthLimit   *RankDepthLimit `json:"rank_depth_limit,omitempty"`
	Error            string          `json:"error,omitempty"`
	ValidationErrors []string        `json:"validation_errors,omitempty"`
}

// rankedWindow checks a ranked page request and returns its window, the
// clamp report and the depth report (C.4: present iff the window reaches
// past the depth).
func rankedWindow(limit, offset, def int) (rank.Window, *ClampedLimit, *RankDepthLimit, error) {
	pg, clamped, err := page(limit, offset, def)
	if err != nil {
		return rank.Window{}, nil, nil, err
	}
	w := rank.Window{Offset: pg.Offset, Limit: pg.Limit}
	var depth *RankDepthLimit
	if w.PastDepth() {
		depth = &RankDepthLimit{RequestedOffset: offset, RequestedLimit: pg.Limit, RankDepth: rank.Depth}
	}
	return w, clamped, depth, nil
}

// FTSSearch runs fts_search_context: one BM25 ordering of at most 100
// readable entries that pass every filter, cut to the requested page. The
// caller and the request are checked here, the search runs in package
// retrieve.
func (e *Engine) FTSSearch(ctx context.Context, req FTSSearchRequest) (*FTSSearchResponse, error) {
	start := time.Now()
	p, acc, err := e.caller(ctx)
	if err != nil {
		return nil, err
	}
	mode, err := request.FullTextMode(req.Mode)
	if err != nil {
		return nil, err
	}
	if err := request.CheckQuery(req.Query); err != nil {
		return nil, err
	}
	resp := &FTSSearchResponse{Query: req.Query, Mode: mode, Results: []FTSResult{}, Language: e.fts.Language()}
	win, clamped, depth, err := rankedWindow(req.Limit, req.Offset, 5)
	if err != nil {
		return nil, err
	}
	resp.ClampedLimit, resp.RankDepthLimit = clamped, depth
	if p := request.FullTextQueryProblem(req.Query); p != nil {
		resp.Error, resp.ValidationErrors = p.Message, p.Errors
		return resp, nil
	}
	f, problem, err := e.buildFilter(req.SearchFilter)
	if err != nil {
		return nil, err
	}
	if problem != nil {
		resp.Error, resp.ValidationErrors = problem.Message, problem.Errors
		return resp, nil
	}
	if win.Empty() || request.BlankQuery(req.Query) {
		// Answered from the arguments alone: no search runs.
		return resp, nil
	}
	if e.fts.Unavailable() != "" {
		return nil, newErr(ErrUnavailable, "%s", e.fts.Unavailable())
	}
	a, err := e.searcher().FullText(ctx, acc, retrieve.FullTextQuery{Text: req.Query, Mode: mode, Filter: f, Window: win,
		Highlight: req.Highlight, Images: req.IncludeImages, Explain: req.ExplainQuery})
	if err != nil {
		return nil, err
	}
	for _, h := range a.Hits {
		resp.Results = append(resp.Results, FTSResult{EntryView: e.searchView(p, h.Entry, req.IncludeImages),
			Scores: FTSScores(h.Scores.Scores), Highlighted: h.Scores.Highlighted, Passage: passageOf(h.Passage)})
	}
	resp.Count = len(resp.Results)
	if req.ExplainQuery {
		resp.Stats = &SearchStats{ExecutionTimeMS: roundMS(time.Since(start)), FiltersApplied: f.Applied,
			RowsReturned: resp.Count, Backend: e.st.Backend(), QueryPlan: &a.Plan}
	}
	return resp, nil
}

// FTSStatus is the fts block of get_statistics.
type FTSStatus struct {
	Enabled            bool    `json:"enabled"`
	Available          bool    `json:"available"`
	Language           string  `json:"language"`
	Backend            string  `json:"backend"`
	Engine             string  `json:"engine"`
	IndexedEntries     int     `json:"indexed_entries"`
	CoveragePercentage float64 `json:"coverage_percentage"`
	Message            string  `json:"message,omitempty"`
}

// ftsStatus reports full-text search for get_statistics. Like the other
// figures it counts what the caller may read: indexed_entries are the
// readable entries the index holds, coverage their share of the readable
// entries (readable of the statistics).
func (e *Engine) ftsStatus(ctx context.Context, acc persist.Access, readable int) (FTSStatus, error) {
	ft := e.fts
	st := FTSStatus{Enabled: ft.Enabled(), Available: ft.Unavailable() == "", Language: ft.Language(), Backend: ft.Backend(), Message: ft.Unavailable()}
	if !st.Available {
		return st, nil
	}
	var err error
	if st.Engine, st.IndexedEntries, err = ft.Indexed(ctx, acc, readable); err != nil {
		return st, err
	}
	st.CoveragePercentage = coverage(st.IndexedEntries, readable)
	return st, nil
}
