package contextd

import "context"

// Principal is the caller of an engine operation: the user id, and the
// groups and roles a verified token carried (none on stdio).
type Principal struct {
	ID     string
	Groups []string
	Roles  []string
}

type principalKey struct{}

// WithPrincipal returns ctx carrying p; every engine call runs as the
// principal of its context.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns the principal carried by ctx.
func PrincipalFrom(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}

func (p Principal) hasRole(role string) bool {
	for _, r := range p.Roles {
		if r == role {
			return true
		}
	}
	return false
}
