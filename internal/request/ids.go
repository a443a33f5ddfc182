package request

import (
	"context"
	"strings"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/index/pyfmt"
	"github.com/contextd/contextd/persist"
)

// ID is what an identifier parameter turned out to be: a full id or a hex
// prefix (exactly one of Full and Prefix is set).
type ID struct {
	Raw    string // as the caller sent it
	Full   string // the canonical id, when complete
	Prefix string // the hex prefix, when 8-31 characters
}

// IsHex reports whether s is lowercase hexadecimal.
func IsHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// ParseID normalizes one identifier parameter: strip, lowercase, drop the
// hyphens of the 36-character form, then a full id or a hex prefix.
func ParseID(raw string) (ID, error) {
	s := strings.ToLower(pyfmt.Strip(raw))
	if len(s) == 36 && strings.Count(s, "-") == 4 {
		s = strings.ReplaceAll(s, "-", "")
	}
	if len(s) >= 8 && len(s) <= 31 && IsHex(s) {
		return ID{Raw: raw, Prefix: s}, nil
	}
	if len(s) != 32 {
		return ID{}, cerrors.Invalidf("Invalid UUID identifier length (expected 32 hex chars after normalization): %s", pyfmt.Quote(raw))
	}
	if !IsHex(s) {
		return ID{}, cerrors.Invalidf("Invalid UUID identifier (non-hex character): %s", pyfmt.Quote(raw))
	}
	return ID{Raw: raw, Full: s}, nil
}

// PrefixResolver finds the readable entries whose id starts with a prefix
// (persist.Reader is one).
type PrefixResolver interface {
	// ResolvePrefix returns up to two matching ids.
	ResolvePrefix(ctx context.Context, acc persist.Access, prefix string) ([]string, error)
}

// ResolveID turns one identifier parameter into a full id, resolving a
// prefix over the entries the caller may read. The error text is the inner
// message; callers add their tool's wrapping.
func ResolveID(ctx context.Context, r PrefixResolver, acc persist.Access, raw string) (string, error) {
	f, err := ParseID(raw)
	if err != nil {
		return "", err
	}
	if f.Full != "" {
		return f.Full, nil
	}
	ids, err := r.ResolvePrefix(ctx, acc, f.Prefix)
	if err != nil {
		return "", err
	}
	switch len(ids) {
	case 0:
		return "", cerrors.Invalidf("No context entry matches prefix %s", pyfmt.Quote(raw))
	case 1:
		return ids[0], nil
	default:
		return "", cerrors.Invalidf("Ambiguous prefix %s matches multiple entries", pyfmt.Quote(raw))
	}
}

// WrapIDErr prefixes an identifier error with a tool's wording, keeping its
// kind; any other error passes unchanged.
func WrapIDErr(prefix string, err error) error {
	if e, ok := err.(*cerrors.Error); ok {
		return &cerrors.Error{Kind: e.Kind, Msg: prefix + e.Msg}
	}
	return err
}

// ResolveIDs resolves a list parameter in order, stopping at the first
// failure, and collapses duplicates.
func ResolveIDs(ctx context.Context, r PrefixResolver, acc persist.Access, raws []string) ([]string, error) {
	out := make([]string, 0, len(raws))
	seen := make(map[string]bool, len(raws))
	for _, raw := range raws {
		id, err := ResolveID(ctx, r, acc, raw)
		if err != nil {
			return nil, WrapIDErr("Invalid context ID: ", err)
		}
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out, nil
}
