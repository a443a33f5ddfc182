package contextd

import (
	"context"
	"encoding/json"
	"time"

	"github.com/contextd/contextd/internal/request"
	"github.com/contextd/contextd/internal/retrieve"
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

// Grep output modes.
const (
	GrepFilesWithMatches = "files_with_matches" // the default: each entry and its match count
	GrepContent          = "content"            // each matching line with its context
	GrepCount            = "count"              // each entry's count
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
// (grep_context). The caller and the request are checked here, the scan
// runs in package retrieve.
func (e *Engine) Grep(ctx context.Context, req GrepRequest) (*GrepResponse, error) {
	p, acc, err := e.caller(ctx)
	if err != nil {
		return nil, err
	}
	lim := retrieve.GrepLimits(e.cfg.Grep).WithDefaults()
	mode, prob, err := request.CheckGrep(request.GrepArgs{
		Mode: req.OutputMode, Pattern: req.Pattern, ContextLines: req.ContextLines,
		MaxMatches: req.MaxMatches, MaxEntriesScanned: req.MaxEntriesScanned,
	}, lim.MaxPatternChars)
	if err != nil {
		return nil, err
	}
	var f *builtFilter
	if prob == nil {
		f, prob, err = e.buildFilter(SearchFilter{
			ThreadID: req.ThreadID, Source: req.Source, Tags: req.Tags,
			ContentType: req.ContentType, MetadataFilters: req.MetadataFilters,
		})
		if err != nil {
			return nil, err
		}
	}
	if prob != nil {
		return &GrepResponse{Mode: mode, Results: []GrepRow{}, Error: prob.Message, ValidationErrors: prob.Errors}, nil
	}
	a, err := e.searcher().Grep(ctx, acc, retrieve.GrepQuery{
		Filter: f, Mode: mode, Pattern: req.Pattern, Regex: req.IsRegex, CaseSensitive: req.CaseSensitive,
		ContextLines: req.ContextLines, MaxMatches: req.MaxMatches, MaxScanned: req.MaxEntriesScanned, Limits: lim,
	})
	if err != nil {
		return nil, err
	}
	resp := &GrepResponse{Mode: mode, TotalMatches: a.Total, Truncated: a.Truncated, Results: make([]GrepRow, len(a.Rows)), TimedOutContextIDs: a.TimedOut}
	for i, r := range a.Rows {
		resp.Results[i] = GrepRow{mode: mode, ContextID: r.ContextID, LineNumber: r.LineNumber, Line: r.Line,
			MatchStart: r.MatchStart, MatchEnd: r.MatchEnd, Before: r.Before, After: r.After, Count: r.Count,
			Visibility: r.Visibility, IsOwner: r.Owner == p.ID}
	}
	return resp, nil
}
