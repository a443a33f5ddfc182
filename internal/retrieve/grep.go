package retrieve

import (
	"context"
	"fmt"
	"github.com/contextd/contextd/api"
	"time"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/index/grep"
	"github.com/contextd/contextd/internal/request"
	"github.com/contextd/contextd/persist"
)

// GrepLimits are the GREP_* caps of grep_context; zero fields mean the
// documented defaults (WithDefaults).
type GrepLimits struct {
	MaxMatchesCap        int           // GREP_MAX_MATCHES_CAP (1000)
	MaxContextLines      int           // GREP_MAX_CONTEXT_LINES (20)
	MaxEntriesScanned    int           // GREP_MAX_ENTRIES_SCANNED (1000)
	AggregateBytesBudget int           // GREP_AGGREGATE_BYTES_BUDGET (64 MiB), counted in code points
	RegexTimeout         time.Duration // GREP_REGEX_TIMEOUT_S (5s), per entry
	RegexTotalTimeout    time.Duration // GREP_REGEX_TOTAL_TIMEOUT_S (30s)
	MaxPatternChars      int           // GREP_MAX_PATTERN_CHARS (32768)
	MaxLineChars         int           // GREP_MAX_LINE_CHARS (1000): longer content-mode lines are cut to a window
}

// WithDefaults fills the zero caps with their defaults.
func (g GrepLimits) WithDefaults() GrepLimits {
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

// grepPage is how many rows one scan query reads, and grepPageBytes how
// much text: a page ends after the entry that reaches it, so a page of
// large entries holds one of them, not 200.
const (
	grepPage      = 200
	grepPageBytes = 4 << 20
)

// GrepQuery is a validated grep_context request.
type GrepQuery struct {
	Filter                 *request.Filter
	Mode                   string // request.GrepContent, GrepCount or GrepFilesWithMatches
	Pattern                string
	Regex, CaseSensitive   bool
	ContextLines           int
	MaxMatches, MaxScanned int // as requested; 0 means the default
	Limits                 GrepLimits
}

// GrepRow is one row of the answer: a matching line in content mode, an
// entry's match count otherwise, with the caller's ownership.
type GrepRow = api.GrepRow

// GrepAnswer is a grep's rows, newest entry first.
type GrepAnswer struct {
	Rows      []GrepRow
	Total     int // matching lines
	Truncated bool
	TimedOut  []string // the entries whose regex timed out
}

// Grep matches a pattern over the readable entries of acc that pass the
// filter, newest first, within the caps.
func (s *Searcher) Grep(ctx context.Context, acc persist.Access, q GrepQuery) (*GrepAnswer, error) {
	m, err := grep.Compile(grep.Options{Pattern: q.Pattern, Regex: q.Regex, CaseSensitive: q.CaseSensitive})
	if err != nil {
		return nil, cerrors.Invalidf("%s", err.Error())
	}
	lim := q.Limits
	f := q.Filter
	pager := func(ctx context.Context, last *persist.Entry) ([]persist.Entry, bool, error) {
		if last != nil {
			f.Before = &persist.Position{CreatedAt: last.CreatedAt, ID: last.ID}
		}
		// The catalog chooses each page among the caller's candidates
		// (search.FullText.Page), so the scan's cost follows what the
		// caller may read, not what other principals stored.
		res, err := s.page(ctx, acc, persist.SearchQuery{Filter: f.Filter, Limit: grepPage, MaxTextBytes: grepPageBytes})
		if err != nil {
			return nil, false, fmt.Errorf("grep scan: %w", err)
		}
		return res.Entries, res.Cut || len(res.Entries) == grepPage, nil
	}
	sr, err := m.Scan(ctx, pager, grep.ScanOptions{
		MaxMatches: min(orDefault(q.MaxMatches, 100), lim.MaxMatchesCap), MaxScanned: min(orDefault(q.MaxScanned, 1000), lim.MaxEntriesScanned),
		CharBudget: lim.AggregateBytesBudget, RegexTimeout: lim.RegexTimeout, RegexTotal: lim.RegexTotalTimeout,
		Content: q.Mode == request.GrepContent, ContextLines: min(q.ContextLines, lim.MaxContextLines), LineChars: lim.MaxLineChars,
	})
	if err != nil {
		return nil, err
	}
	return &GrepAnswer{Rows: grepRows(sr.Hits, q.Mode, acc.Principal), Total: len(sr.Hits), Truncated: sr.Truncated, TimedOut: sr.TimedOut}, nil
}

// page reads one page of entries newest first: through the full-text
// side's catalog when there is one, else from the store.
func (s *Searcher) page(ctx context.Context, acc persist.Access, q persist.SearchQuery) (persist.SearchResult, error) {
	if s.FTS != nil {
		return s.FTS.Page(ctx, acc, q)
	}
	return s.Store.Search(ctx, acc, q)
}

// grepRows are the rows of the hits for the caller: one per line in
// content mode, one per entry with its count otherwise.
func grepRows(hits []grep.Hit, mode, caller string) []GrepRow {
	rows := []GrepRow{}
	for i := range hits {
		h := &hits[i]
		if mode == request.GrepContent {
			rows = append(rows, GrepRow{
				Mode: mode, ContextID: h.ID, LineNumber: h.Line + 1, Line: h.Text, MatchStart: h.Start, MatchEnd: h.End,
				Before: h.Before, After: h.After, Visibility: h.Visibility, IsOwner: h.Owner == caller,
			})
			continue
		}
		if n := len(rows); n > 0 && rows[n-1].ContextID == h.ID {
			rows[n-1].Count++
			continue
		}
		rows = append(rows, GrepRow{Mode: mode, ContextID: h.ID, Count: 1, Visibility: h.Visibility, IsOwner: h.Owner == caller})
	}
	return rows
}

func orDefault(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}
