package server

import (
	"context"

	"github.com/contextd/contextd"
)

// unshareContextTool declares unshare_context.
func unshareContextTool() *toolDef {
	return &toolDef{
		name:    "unshare_context",
		title:   "Unshare Context",
		kind:    revoking,
		writes:  true,
		failure: "Failed to unshare context",
		desc: `Remove exactly one grant (principal type, principal ID and permission) from an entry the caller owns.

Removing read from a principal that also holds write leaves the write grant, which still allows reading. Removing a grant the entry does not hold changes nothing and reports removed: false. The owner may remove any grant the entry holds. Grants leave updated_at unchanged.

Returns {success, context_id, principal_type, principal_id, permission, removed, remaining_permissions, message}; remaining_permissions lists what the same principal type and ID still hold on the entry (a group grant may still give a user access through membership).`,
		params: grantParams("The permission of the grant to remove: 'read' or 'write'."),
		call: func(ctx context.Context, eng *contextd.Engine, a args) (any, error) {
			return eng.Unshare(ctx, grantRequest(a))
		},
	}
}
