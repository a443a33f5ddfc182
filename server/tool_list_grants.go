package server

import (
	"context"

	"github.com/contextd/contextd"
)

// listContextGrantsTool declares list_context_grants.
func listContextGrantsTool() *toolDef {
	return &toolDef{
		name:    "list_context_grants",
		title:   "List Context Grants",
		kind:    readOnly,
		failure: "Failed to list context grants",
		desc: `List every grant of an entry the caller owns, with no paging and no cap.

Only the owner may list the grants of an entry; an entry the caller may not read is reported as not found.

Returns {context_id, grants, count}. Each grant is {principal_type, principal_id, permission, granted_by, created_at}, ordered by principal_type, then principal_id, then permission.`,
		params: []param{
			{name: "context_id", typ: tString, required: true, minLength: 8,
				desc: "ID of an entry the caller owns: 32-character hex, 36-character hyphenated UUID, or a unique 8 to 31 character hex prefix."},
		},
		call: func(ctx context.Context, eng *contextd.Engine, a args) (any, error) {
			return eng.ListGrants(ctx, contextd.ListGrantsRequest{ContextID: a.str("context_id")})
		},
	}
}
