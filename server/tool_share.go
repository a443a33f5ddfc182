package server

import (
	"context"

	"github.com/contextd/contextd"
)

// grantParams are the parameters share_context and unshare_context share.
// principal_id carries no length constraint in the schema: the engine
// checks it so the caller sees the reference messages.
func grantParams(permissionDesc string) []param {
	return []param{
		{name: "context_id", typ: tString, required: true, minLength: 8,
			desc: "ID of an entry the caller owns: 32-character hex, 36-character hyphenated UUID, or a unique 8 to 31 character hex prefix over the entries the caller may read."},
		{name: "principal_type", typ: tString, required: true, enum: []string{"user", "group"},
			desc: "'user' for one principal (a token subject) or 'group' for every member of a group."},
		{name: "principal_id", typ: tString, required: true,
			desc: "The user or group ID, matched verbatim (case-sensitive) against the token's subject or groups: 1 to 256 characters, no leading or trailing whitespace. Its existence is not checked."},
		{name: "permission", typ: tString, required: true, enum: []string{"read", "write"}, desc: permissionDesc},
	}
}

func grantRequest(a args) contextd.ShareRequest {
	return contextd.ShareRequest{
		ContextID:     a.str("context_id"),
		PrincipalType: a.str("principal_type"),
		PrincipalID:   a.str("principal_id"),
		Permission:    a.str("permission"),
	}
}

// shareContextTool declares share_context.
func shareContextTool() *toolDef {
	return &toolDef{
		name:    "share_context",
		title:   "Share Context",
		kind:    sharing,
		writes:  true,
		failure: "Failed to share context",
		desc: `Grant one user or one group read or write permission on an entry the caller owns.

Only the owner may share an entry; a write grant never allows sharing. An entry the caller may not read is reported as not found; one it may read but does not own is refused. read lets the grantee read a private entry; write also lets it change text, metadata, tags and images, but never visibility, deletion or sharing. A group grant reaches every member of the group. read and write are separate grants.

Sharing is idempotent: a grant the entry already holds stays as it is and created is false. Grants leave updated_at and the version unchanged. A user grant naming the owner, or naming the anonymous principal (publish with visibility 'public' instead), is refused.

Returns {success, context_id, principal_type, principal_id, permission, created, message}.`,
		params: grantParams("'read', or 'write', which also allows reading and editing text, metadata, tags and images (not visibility, deletion or sharing)."),
		call: func(ctx context.Context, eng *contextd.Engine, a args) (any, error) {
			return eng.Share(ctx, grantRequest(a))
		},
	}
}
