package contextd

import (
	"context"
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

// Grep matches a pattern over the readable entries, newest first
// (grep_context). The caller and the request are checked here, the scan
// runs in package retrieve.
func (e *Engine) Grep(ctx context.Context, req GrepRequest) (*GrepResponse, error) {
	_, acc, err := e.caller(ctx)
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
	return &GrepResponse{Mode: mode, TotalMatches: a.Total, Truncated: a.Truncated, Results: a.Rows, TimedOutContextIDs: a.TimedOut}, nil
}
