package contextd

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/contextd/contextd/index/grep"
	"github.com/contextd/contextd/internal/request"
	"github.com/contextd/contextd/persist"
)

// GrepConfig holds the GREP_* caps. Zero fields mean the documented
// defaults.
type GrepConfig struct {
	MaxMatchesCap        int           // GREP_MAX_MATCHES_CAP (1000)
	MaxContextLines      int           // GREP_MAX_CONTEXT_LINES (20)
	MaxEntriesScanned    int           // GREP_MAX_ENTRIES_SCANNED (1000)
	AggregateBytesBudget int           // GREP_AGGREGATE_BYTES_BUDGET (64 MiB), counted in code points
	RegexTimeout         time.Duration // GREP_REGEX_TIMEOUT_S (5s), per entry
	RegexTotalTimeout    time.Duration // GREP_REGEX_TOTAL_TIMEOUT_S (30s)
	MaxPatternChars      int           // GREP_MAX_PATTERN_CHARS (32768)
	MaxLineChars         int           // GREP_MAX_LINE_CHARS (1000): longer content-mode lines are cut to a window
}

// grepPage is how many rows one scan query reads, and grepPageBytes how
// much text: a page ends after the entry that reaches it, so a page of
// large entries holds one of them, not 200.
const (
	grepPage      = 200
	grepPageBytes = 4 << 20
)

func (g GrepConfig) withDefaults() GrepConfig {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&g.MaxMatchesCap, 1000)
	def(&g.MaxContextLines, 20)
	def(&g.MaxEntriesScanned, 1000)
	def(&g.AggregateBytesBudget, 64<<20)
	def(&g.MaxPatternChars, 32768)
	if g.RegexTimeout <= 0 {
		g.RegexTimeout = 5 * time.Second
	}
	if g.RegexTotalTimeout <= 0 {
		g.RegexTotalTimeout = 30 * time.Second
	}
	return g
}

// Grep output modes.
const (
	GrepFilesWithMatches = request.GrepFilesWithMatches
	GrepContent          = request.GrepContent
	GrepCount            = request.GrepCount
)

// GrepRequest is the input of grep_context. Zero numbers mean defaults.
type GrepRequest struct {
	Pattern           string           `json:"pattern"`
	ThreadID          string           `json:"thread_id,omitempty"`
	Source            string           `json:"source,omitempty"`
	Tags              []string         `json:"tags,omitempty"`
	MetadataFilters   []map[string]any `json:"metadata_filters,omitempty"`
	ContentType       string           `json:"content_type,omitempty"`
	IsRegex           bool             `json:"is_regex,omitempty"`
	CaseSensitive     bool             `json:"case_sensitive,omitempty"`
	OutputMode        string           `json:"output_mode,omitempty"`
	ContextLines      int              `json:"context_lines,omitempty"`
	MaxMatches        int              `json:"max_matches,omitempty"`
	MaxEntriesScanned int              `json:"max_entries_scanned,omitempty"`
}

// GrepRow is one result row; which fields it carries depends on the mode.
type GrepRow struct {
	mode       string
	ContextID  string
	LineNumber int
	Line       string
	MatchStart int
	MatchEnd   int
	Before     []string
	After      []string
	Count      int // match_count or count
	Visibility string
	IsOwner    bool
}

// MarshalJSON writes the row shape of its output mode.
func (r GrepRow) MarshalJSON() ([]byte, error) {
	switch r.mode {
	case GrepContent:
		return json.Marshal(struct {
			ContextID  string   `json:"context_id"`
			LineNumber int      `json:"line_number"`
			Line       string   `json:"line"`
			MatchStart int      `json:"match_start"`
			MatchEnd   int      `json:"match_end"`
			Before     []string `json:"before"`
			After      []string `json:"after"`
			Visibility string   `json:"visibility"`
			IsOwner    bool     `json:"is_owner"`
		}{r.ContextID, r.LineNumber, r.Line, r.MatchStart, r.MatchEnd, nonNilStrings(r.Before), nonNilStrings(r.After), r.Visibility, r.IsOwner})
	case GrepCount:
		return json.Marshal(struct {
			ContextID  string `json:"context_id"`
			Count      int    `json:"count"`
			Visibility string `json:"visibility"`
			IsOwner    bool   `json:"is_owner"`
		}{r.ContextID, r.Count, r.Visibility, r.IsOwner})
	}
	return json.Marshal(struct {
		ContextID  string `json:"context_id"`
		MatchCount int    `json:"match_count"`
		Visibility string `json:"visibility"`
		IsOwner    bool   `json:"is_owner"`
	}{r.ContextID, r.Count, r.Visibility, r.IsOwner})
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// GrepResponse is the result of grep_context. A filter or cap problem is
// not an error: Error and ValidationErrors say what was wrong.
type GrepResponse struct {
	Mode               string    `json:"mode"`
	TotalMatches       int       `json:"total_matches"`
	Truncated          bool      `json:"truncated"`
	Results            []GrepRow `json:"results"`
	TimedOutContextIDs []string  `json:"timed_out_context_ids,omitempty"`
	Error              string    `json:"error,omitempty"`
	ValidationErrors   []string  `json:"validation_errors,omitempty"`
}

// Grep matches a pattern over the readable entries, newest first
// (grep_context).
func (e *Engine) Grep(ctx context.Context, req GrepRequest) (*GrepResponse, error) {
	p, acc, err := e.caller(ctx)
	if err != nil {
		return nil, err
	}
	cfg := e.cfg.Grep.withDefaults()
	mode, prob, err := request.CheckGrep(request.GrepArgs{
		Mode: req.OutputMode, Pattern: req.Pattern, ContextLines: req.ContextLines,
		MaxMatches: req.MaxMatches, MaxEntriesScanned: req.MaxEntriesScanned,
	}, cfg.MaxPatternChars)
	if err != nil {
		return nil, err
	}
	problem := func(p *request.Problem) *GrepResponse {
		return &GrepResponse{Mode: mode, Results: []GrepRow{}, Error: p.Message, ValidationErrors: p.Errors}
	}
	if prob != nil {
		return problem(prob), nil
	}
	f, prob, err := e.buildFilter(SearchFilter{
		ThreadID: req.ThreadID, Source: req.Source, Tags: req.Tags,
		ContentType: req.ContentType, MetadataFilters: req.MetadataFilters,
	})
	if err != nil {
		return nil, err
	}
	if prob != nil {
		return problem(prob), nil
	}
	m, err := grep.Compile(grep.Options{Pattern: req.Pattern, Regex: req.IsRegex, CaseSensitive: req.CaseSensitive})
	if err != nil {
		return nil, invalidf("%s", err.Error())
	}
	ctxLines := min(req.ContextLines, cfg.MaxContextLines)
	maxMatches := orDefault(req.MaxMatches, 100)
	maxMatches = min(maxMatches, cfg.MaxMatchesCap)
	maxScanned := min(orDefault(req.MaxEntriesScanned, 1000), cfg.MaxEntriesScanned)

	pager := func(ctx context.Context, last *persist.Entry) ([]persist.Entry, bool, error) {
		if last != nil {
			f.Before = &persist.Position{CreatedAt: last.CreatedAt, ID: last.ID}
		}
		res, err := e.st.Search(ctx, acc, persist.SearchQuery{Filter: f.Filter, Limit: grepPage, MaxTextBytes: grepPageBytes})
		if err != nil {
			return nil, false, fmt.Errorf("grep scan: %w", err)
		}
		return res.Entries, res.Cut || len(res.Entries) == grepPage, nil
	}
	sr, err := m.Scan(ctx, pager, grep.ScanOptions{
		MaxMatches: maxMatches, MaxScanned: maxScanned, CharBudget: cfg.AggregateBytesBudget,
		RegexTimeout: cfg.RegexTimeout, RegexTotal: cfg.RegexTotalTimeout,
		Content: mode == GrepContent, ContextLines: ctxLines, LineChars: cfg.MaxLineChars,
	})
	if err != nil {
		return nil, err
	}
	hits := sr.Hits
	resp := &GrepResponse{Mode: mode, TotalMatches: len(hits), Truncated: sr.Truncated, Results: []GrepRow{}, TimedOutContextIDs: sr.TimedOut}
	for i := range hits {
		h := &hits[i]
		if mode == GrepContent {
			resp.Results = append(resp.Results, GrepRow{
				mode: mode, ContextID: h.ID, LineNumber: h.Line + 1, Line: h.Text,
				MatchStart: h.Start, MatchEnd: h.End, Before: h.Before, After: h.After,
				Visibility: h.Visibility, IsOwner: h.Owner == p.ID,
			})
			continue
		}
		if n := len(resp.Results); n > 0 && resp.Results[n-1].ContextID == h.ID {
			resp.Results[n-1].Count++
			continue
		}
		resp.Results = append(resp.Results, GrepRow{mode: mode, ContextID: h.ID, Count: 1, Visibility: h.Visibility, IsOwner: h.Owner == p.ID})
	}
	return resp, nil
}

func orDefault(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}
