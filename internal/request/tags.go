package request

import (
	"strings"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/index/pyfmt"
)

// CheckTagCaps applies the caps to the raw tags, before normalization.
func CheckTagCaps(tags []string) error {
	if len(tags) > MaxTags {
		return cerrors.Invalidf("Too many tags: %d provided, maximum is %d per entry", len(tags), MaxTags)
	}
	for i, t := range tags {
		if n := RuneLen(t); n > MaxTagLen {
			return cerrors.Invalidf("Tag %d is too long: %d characters, maximum is %d characters per tag", i, n, MaxTagLen)
		}
	}
	return nil
}

// NormalizeTags strips and lowercases, drops blanks and duplicates,
// keeping the first-seen order. A nil input stays nil (absent).
func NormalizeTags(tags []string) []string {
	if tags == nil {
		return nil
	}
	out := make([]string, 0, len(tags))
	seen := make(map[string]bool, len(tags))
	for _, t := range tags {
		t = strings.ToLower(pyfmt.Strip(t))
		if t == "" || seen[t] {
			continue
		}
		seen[t] = true
		out = append(out, t)
	}
	return out
}
