package api

// NavigateRequest is the input of navigate_context.
type NavigateRequest struct {
	ContextID            string `json:"context_id"`
	MaxDepth             int    `json:"max_depth,omitempty"` // 0 means 6
	IncludeNodeSummaries bool   `json:"include_node_summaries,omitempty"`
}

// OutlineNode is one node of a navigate_context outline.
type OutlineNode struct {
	NodeID    string         `json:"node_id"`
	Level     int            `json:"level"`
	Ordinal   int            `json:"ordinal"`
	Title     string         `json:"title"`
	CharStart int            `json:"char_start"`
	CharEnd   int            `json:"char_end"`
	Summary   *string        `json:"summary"`
	Children  []*OutlineNode `json:"children"`
}

// NavigateResponse is the result of navigate_context.
type NavigateResponse struct {
	ContextID  string       `json:"context_id"`
	TotalChars int          `json:"total_chars"`
	NodeCount  int          `json:"node_count"`
	Root       *OutlineNode `json:"root"`
	Visibility string       `json:"visibility"`
	IsOwner    bool         `json:"is_owner"`
}

// ReadRangeRequest is the input of read_context_range: exactly one of a
// character range, a line range or a node id. Nil means absent.
type ReadRangeRequest struct {
	ContextID string  `json:"context_id"`
	StartChar *int    `json:"start_char,omitempty"`
	EndChar   *int    `json:"end_char,omitempty"`
	StartLine *int    `json:"start_line,omitempty"`
	EndLine   *int    `json:"end_line,omitempty"`
	NodeID    *string `json:"node_id,omitempty"`
}

// ReadRangeResponse is the result of read_context_range: the resolved span.
type ReadRangeResponse struct {
	ContextID  string `json:"context_id"`
	StartChar  int    `json:"start_char"`
	EndChar    int    `json:"end_char"`
	StartLine  int    `json:"start_line"`
	EndLine    int    `json:"end_line"`
	Text       string `json:"text"`
	Visibility string `json:"visibility"`
	IsOwner    bool   `json:"is_owner"`
}
