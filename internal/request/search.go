package request

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/index/pyfmt"
	"github.com/contextd/contextd/persist"
)

// Limits of the search tools' paging and queries.
const (
	MaxPageLimit = 100       // the largest page; a larger limit is clamped
	MaxOffset    = 1_000_000 // the largest offset
	MaxQuery     = 10000     // the longest full-text or hybrid query, in code points
)

// Page is a validated page request: Limit is the applied limit, and
// Clamped (the requested limit) is non-zero when it was cut to
// MaxPageLimit.
type Page struct {
	Limit, Offset int
	Clamped       int
}

// CheckPage applies a search tool's default page size (def for limit 0)
// and the bounds of limit and offset.
func CheckPage(limit, offset, def int) (Page, error) {
	p := Page{Limit: limit, Offset: offset}
	switch {
	case limit == 0:
		p.Limit = def
	case limit < 1:
		return Page{}, cerrors.Invalidf("limit must be at least 1, got %d", limit)
	case limit > MaxPageLimit:
		p.Limit, p.Clamped = MaxPageLimit, limit
	}
	if offset < 0 || offset > MaxOffset {
		return Page{}, cerrors.Invalidf("offset must be between 0 and %d, got %d", MaxOffset, offset)
	}
	return p, nil
}

// FullTextModes are the search modes of fts_search_context, in the order
// the error text lists them.
var fullTextModes = []string{persist.FullTextMatch, persist.FullTextPrefix, persist.FullTextPhrase, persist.FullTextBoolean}

// FullTextMode validates a fts_search_context mode; "" is match.
func FullTextMode(mode string) (string, error) {
	if mode == "" {
		return persist.FullTextMatch, nil
	}
	if !slices.Contains(fullTextModes, mode) {
		return "", cerrors.Invalidf("Invalid search mode: %s. Must be one of: %s", pyfmt.Quote(mode), strings.Join(fullTextModes, ", "))
	}
	return mode, nil
}

// CheckQuery bounds a full-text or hybrid query to 1..MaxQuery code points.
func CheckQuery(q string) error {
	if n := utf8.RuneCountInString(q); n < 1 || n > MaxQuery {
		return cerrors.Invalidf("query must be 1 to %d characters, got %d", MaxQuery, n)
	}
	return nil
}

// BlankQuery reports a query of whitespace only (Python's str.strip
// leaves nothing). Such a query has no term to match and no meaning to
// embed, so fts, semantic and hybrid search answer it the same way: no
// results and no error, like a query of operator words only,
// after the filters are validated and without running a search or an
// embedding call (as a page past the depth, R-332). Embedding it would
// return whatever entries lie nearest to the model's vector for blank
// text, which are unrelated to anything the caller asked.
func BlankQuery(q string) bool { return q != "" && pyfmt.Strip(q) == "" }

// JoinSentences joins messages with ". " so that a message already ending
// in a period does not end up with two ("...keys.. Semantic: ...").
func JoinSentences(parts []string) string {
	out := make([]string, len(parts))
	for i, p := range parts {
		if i < len(parts)-1 {
			p = strings.TrimSuffix(p, ".")
		}
		out[i] = p
	}
	return strings.Join(out, ". ")
}

// FullTextQueryProblem reports a query full-text search cannot parse: an
// embedded NUL or invalid UTF-8 (a lone surrogate), R-091. It is a
// validation problem of the full-text leg, not an error.
func FullTextQueryProblem(q string) *Problem {
	const failed = "FTS query validation failed"
	switch {
	case strings.IndexByte(q, 0) >= 0:
		return &Problem{Message: failed, Errors: []string{"Query contains an embedded NUL (U+0000) character, which full-text search cannot parse"}}
	case !utf8.ValidString(q):
		return &Problem{Message: failed, Errors: []string{"Query contains a lone surrogate or invalid UTF-8, which full-text search cannot parse"}}
	}
	return nil
}

// Fusion validates hybrid_search_context's fusion_method ("" is
// defMethod, HYBRID_FUSION) and rrf_k (nil is def).
func Fusion(method string, rrfK *int, defMethod string, def int) (string, int, error) {
	if method == "" {
		method = defMethod
	}
	if method != "rrf" && method != "convex" {
		return "", 0, cerrors.Invalidf("Invalid fusion_method: %s. Must be 'rrf' or 'convex'", pyfmt.Quote(method))
	}
	if rrfK == nil {
		return method, def, nil
	}
	if *rrfK < 1 || *rrfK > 1000 {
		return "", 0, cerrors.Invalidf("rrf_k must be between 1 and 1000, got %d", *rrfK)
	}
	return method, *rrfK, nil
}

// Grep output modes.
const (
	GrepFilesWithMatches = "files_with_matches"
	GrepContent          = "content"
	GrepCount            = "count"
)

// GrepArgs are grep_context's arguments; zero numbers mean defaults.
type GrepArgs struct {
	Mode, Pattern     string
	ContextLines      int
	MaxMatches        int
	MaxEntriesScanned int
}

// CheckGrep validates grep_context's arguments in the documented order and
// returns the output mode ("" is files_with_matches). A pattern longer
// than maxPattern code points is a problem to report, not an error.
func CheckGrep(a GrepArgs, maxPattern int) (string, *Problem, error) {
	mode := a.Mode
	if mode == "" {
		mode = GrepFilesWithMatches
	}
	if mode != GrepFilesWithMatches && mode != GrepContent && mode != GrepCount {
		return "", nil, cerrors.Invalidf("output_mode must be one of 'files_with_matches', 'content', 'count'")
	}
	if a.Pattern == "" {
		return "", nil, cerrors.Invalidf("pattern cannot be empty")
	}
	if n := utf8.RuneCountInString(a.Pattern); n > maxPattern {
		msg := fmt.Sprintf("Pattern too long: %d characters exceeds the maximum of %d. Shorten the pattern.", n, maxPattern)
		return mode, &Problem{Message: msg, Errors: []string{msg}}, nil
	}
	if a.ContextLines < 0 || a.ContextLines > 100 {
		return "", nil, cerrors.Invalidf("context_lines must be between 0 and 100, got %d", a.ContextLines)
	}
	if a.MaxMatches < 0 || a.MaxMatches > 10000 {
		return "", nil, cerrors.Invalidf("max_matches must be between 1 and 10000, got %d", a.MaxMatches)
	}
	if a.MaxEntriesScanned < 0 || a.MaxEntriesScanned > 1_000_000 {
		return "", nil, cerrors.Invalidf("max_entries_scanned must be between 1 and 1000000, got %d", a.MaxEntriesScanned)
	}
	return mode, nil, nil
}

// addressingModeMsg is read_context_range's error for zero or several
// addressing modes.
const addressingModeMsg = "Provide exactly one addressing mode: a character range (start_char/end_char), a line range (start_line/end_line), or a node_id."

// CheckAddress validates read_context_range's addressing: exactly one
// mode, character offsets at least 0, line numbers at least 1.
func CheckAddress(startChar, endChar, startLine, endLine *int, nodeID *string) error {
	modes := 0
	for _, set := range []bool{startChar != nil || endChar != nil, startLine != nil || endLine != nil, nodeID != nil} {
		if set {
			modes++
		}
	}
	if modes != 1 {
		return cerrors.Invalidf(addressingModeMsg)
	}
	for _, v := range []struct {
		name string
		v    *int
		min  int
	}{{"start_char", startChar, 0}, {"end_char", endChar, 0}, {"start_line", startLine, 1}, {"end_line", endLine, 1}} {
		if v.v != nil && *v.v < v.min {
			return cerrors.Invalidf("%s must be at least %d, got %d", v.name, v.min, *v.v)
		}
	}
	return nil
}
