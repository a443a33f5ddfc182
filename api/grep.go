package api

import "encoding/json"

// Grep output modes (GrepRequest.OutputMode, GrepRow.Mode).
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
	// Mode is the output mode, which selects the JSON shape.
	Mode       string
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

// MarshalJSON writes the row shape of its output mode.
func (r GrepRow) MarshalJSON() ([]byte, error) {
	switch r.Mode {
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
		}{r.ContextID, r.LineNumber, r.Line, r.MatchStart, r.MatchEnd, nonNil(r.Before), nonNil(r.After), r.Visibility, r.IsOwner})
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

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
