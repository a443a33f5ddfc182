package server

import (
	"context"

	"github.com/contextd/contextd"
)

// navigateContextTool declares navigate_context.
func navigateContextTool() *toolDef {
	return &toolDef{
		name:    "navigate_context",
		title:   "Navigate Context",
		kind:    readOnly,
		failure: "Failed to navigate context",
		desc: `Build a navigable Markdown-heading outline (index_tree) of one entry, computed on demand from its current text, so it is never stale and works for every entry. Headings are ATX (# Title) and setext (Title over === or ---); headings inside fenced code blocks are ignored.

The synthetic root spans the whole text and carries the entry summary (null when none). Each node carries node_id (a heading-path slug with a sibling counter, e.g. setup/install, notes-2; ids do not depend on max_depth), level, ordinal, title, char_start/char_end (Unicode code-point offsets of its section, ready for read_context_range), summary and children.

Returns {context_id, total_chars, node_count, root, visibility, is_owner}. Pass a node_id to read_context_range to read that section.`,
		params: []param{
			{name: "context_id", typ: tString, required: true, minLength: 8,
				desc: "Context entry id: 32-character hex, 36-character UUID, or an 8 to 31 character hex prefix."},
			{name: "max_depth", typ: tInteger, min: i64(1), max: i64(6), def: 6,
				desc: "Deepest heading level to include, 1 to 6 (default 6); deeper headings fold into their section."},
			{name: "include_node_summaries", typ: tBoolean, def: false,
				desc: "Attach stored per-section summaries to the nodes when that layer is enabled (default false)."},
		},
		call: func(ctx context.Context, eng *contextd.Engine, a args) (any, error) {
			return eng.Navigate(ctx, contextd.NavigateRequest{
				ContextID:            a.str("context_id"),
				MaxDepth:             a.int("max_depth"),
				IncludeNodeSummaries: a.bool("include_node_summaries"),
			})
		},
	}
}
