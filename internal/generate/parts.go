package generate

import (
	"fmt"
	"strings"
)

// The store and update messages end with a parenthesized list of what
// generation did; the transports and their
// conformance tests compare these texts exactly.

// StoreParts is the parenthesized part of a store message: merged
// says the store merged into a deduplication candidate, embStored that
// the generated vectors were written.
func StoreParts(r *Result, merged, embStored bool) string {
	if r == nil {
		return ""
	}
	var parts []string
	if r.EmbHit == EmbeddingGenerated {
		if embStored {
			parts = append(parts, "embedding generated")
		} else {
			parts = append(parts, "embedding generated but not stored - duplicate")
		}
	}
	switch {
	case r.Outcome == SummaryGenerated:
		parts = append(parts, "summary generated")
	case r.Outcome == SummaryReused && merged:
		parts = append(parts, "summary preserved")
	}
	return parenthesized(parts)
}

// UpdateParts is the parenthesized part of an update message.
func UpdateParts(r *Result) string {
	if r == nil {
		return ""
	}
	var parts []string
	if r.EmbHit == EmbeddingGenerated {
		parts = append(parts, "embedding regenerated")
	}
	switch r.Outcome {
	case SummaryGenerated:
		parts = append(parts, "summary regenerated")
	case SummaryEmpty:
		parts = append(parts, "summary cleared")
	}
	return parenthesized(parts)
}

// Stored is one entry a batch store wrote, for BatchStoreParts.
type Stored struct {
	Result            *Result
	Merged, EmbStored bool
}

// BatchStoreParts is the parenthesized part of a batch store message
// over the entries that were stored.
func BatchStoreParts(stored []Stored) string {
	var embedded, dups, summarized, preserved int
	for _, s := range stored {
		r := s.Result
		if r == nil {
			continue
		}
		if r.EmbHit == EmbeddingGenerated {
			embedded++
			if !s.EmbStored {
				dups++
			}
		}
		switch {
		case r.Outcome == SummaryGenerated:
			summarized++
		case r.Outcome == SummaryReused && s.Merged:
			preserved++
		}
	}
	var parts []string
	if embedded > 0 {
		p := "embeddings generated"
		if dups > 0 {
			p += fmt.Sprintf(" (%d not stored - duplicates)", dups)
		}
		parts = append(parts, p)
	}
	if summarized > 0 {
		parts = append(parts, "summaries generated")
	}
	if preserved > 0 {
		parts = append(parts, "summaries preserved")
	}
	return parenthesized(parts)
}

// BatchUpdateParts is the parenthesized part of a batch update message
// over the updates that were applied.
func BatchUpdateParts(applied []*Result) string {
	var embedded, summarized, cleared bool
	for _, r := range applied {
		if r == nil {
			continue
		}
		embedded = embedded || r.EmbHit == EmbeddingGenerated
		summarized = summarized || r.Outcome == SummaryGenerated
		cleared = cleared || r.Outcome == SummaryEmpty
	}
	var parts []string
	for _, p := range []struct {
		on   bool
		text string
	}{{embedded, "embeddings regenerated"}, {summarized, "summaries regenerated"}, {cleared, "summaries cleared"}} {
		if p.on {
			parts = append(parts, p.text)
		}
	}
	return parenthesized(parts)
}

// parenthesized is " (a, b)", or "" without parts.
func parenthesized(parts []string) string {
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}
