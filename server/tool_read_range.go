package server

import (
	"context"

	"github.com/contextd/contextd"
)

// readContextRangeTool declares read_context_range.
func readContextRangeTool() *toolDef {
	return &toolDef{
		name:    "read_context_range",
		title:   "Read Context Range",
		kind:    readOnly,
		failure: "Failed to read context range",
		desc: `Read part of one entry by character range, line range, or outline node_id. Slices the full stored text_content directly (works for every entry).

Provide exactly ONE addressing mode: start_char/end_char (Unicode code-point offsets, end exclusive), start_line/end_line (1-based, inclusive; lines split on \n or \r\n), or node_id (from navigate_context; "root" is the whole text). Pair with grep_context (content mode) by passing match_start/match_end as start_char/end_char, or with navigate_context by passing a node_id.

Out-of-range offsets and lines are clamped to the text, so a stale offset degrades gracefully. Returns {context_id, start_char, end_char, start_line, end_line, text, visibility, is_owner} echoing the resolved span.`,
		params: []param{
			{name: "context_id", typ: tString, required: true, minLength: 8,
				desc: "Context entry id: 32-character hex, 36-character UUID, or an 8 to 31 character hex prefix."},
			{name: "start_char", typ: tInteger, min: i64(0),
				desc: "Start of a character range (code points, default 0)."},
			{name: "end_char", typ: tInteger, min: i64(0),
				desc: "End of a character range, exclusive (default: end of text)."},
			{name: "start_line", typ: tInteger, min: i64(1),
				desc: "First line of a line range, 1-based (default 1)."},
			{name: "end_line", typ: tInteger, min: i64(1),
				desc: "Last line of a line range, inclusive (default: last line)."},
			{name: "node_id", typ: tString,
				desc: "An outline node id from navigate_context."},
		},
		call: func(ctx context.Context, eng *contextd.Engine, a args) (any, error) {
			return eng.ReadRange(ctx, contextd.ReadRangeRequest{
				ContextID: a.str("context_id"),
				StartChar: a.intPtr("start_char"),
				EndChar:   a.intPtr("end_char"),
				StartLine: a.intPtr("start_line"),
				EndLine:   a.intPtr("end_line"),
				NodeID:    a.strPtr("node_id"),
			})
		},
	}
}

// intPtr returns an integer parameter, nil when absent.
func (a args) intPtr(name string) *int {
	if n, ok := a[name].(int); ok {
		return &n
	}
	return nil
}
