package contextd

import (
	"context"
	"io"
	"time"

	"github.com/contextd/contextd/internal/rank"
	"github.com/contextd/contextd/internal/read"
	"github.com/contextd/contextd/internal/request"
	"github.com/contextd/contextd/internal/retrieve"
	"github.com/contextd/contextd/internal/search"
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
	// when the engine opens SQLite at a file; otherwise no snapshot (the
	// index is rebuilt at each start, in a temporary directory).
	IndexDir string
	// Progress receives index rebuild progress (default: Config.Logger,
	// a line an Info record).
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
		Disable: c.Disable, Backend: c.Backend, Language: c.Language, Dir: dir, Progress: e.progress(),
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

// rankedWindow checks a ranked page request and returns its window, the
// clamp report and the depth report (C.4: present iff the window reaches
// past the depth).
func rankedWindow(limit, offset, def int) (rank.Window, *ClampedLimit, *RankDepthLimit, error) {
	pg, clamped, err := read.Page(limit, offset, def)
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
		resp.Results = append(resp.Results, FTSResult{EntryView: e.entries().SearchView(p.ID, h.Entry, req.IncludeImages),
			Scores: h.Scores.Scores, Highlighted: h.Scores.Highlighted, Passage: h.Passage})
	}
	resp.Count = len(resp.Results)
	if req.ExplainQuery {
		resp.Stats = &SearchStats{ExecutionTimeMS: read.RoundMS(time.Since(start)), FiltersApplied: f.Applied,
			RowsReturned: resp.Count, Backend: e.st.Backend(), QueryPlan: &a.Plan}
	}
	return resp, nil
}
