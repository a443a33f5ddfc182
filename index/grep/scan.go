package grep

import (
	"context"
	"errors"
	"time"
	"unicode/utf8"

	"github.com/contextd/contextd/index/outline"
	"github.com/contextd/contextd/persist"
)

// ScanOptions bound one scan over stored entries (grep_context's caps).
type ScanOptions struct {
	MaxMatches int // matches kept; one more found marks the scan truncated
	MaxScanned int // entries read
	CharBudget int // code points read, over all entries
	// RegexTimeout bounds one entry and RegexTotal the whole scan, for
	// regular expressions only (literals are linear and cheap).
	RegexTimeout time.Duration
	RegexTotal   time.Duration
}

// Pager reads the next page of entries, newest first, after last (nil for
// the first page). A page shorter than pageSize is the last.
type Pager func(ctx context.Context, last *persist.Entry) ([]persist.Entry, error)

// Hit is one match in a stored entry.
type Hit struct {
	Entry *persist.Entry
	Lines *outline.Lines
	Match
}

// Context returns up to n lines before and after the hit's line.
func (h *Hit) Context(n int) (before, after []string) {
	li := h.Line
	for j := max(0, li-n); j < li; j++ {
		before = append(before, h.Lines.Line(j))
	}
	for j := li + 1; j <= li+n && j < h.Lines.Count(); j++ {
		after = append(after, h.Lines.Line(j))
	}
	return before, after
}

// ScanResult is what a scan found. Truncated reports that a cap or a
// budget stopped the scan while more could have matched; TimedOut lists
// the entries whose own regex deadline passed (they are skipped).
type ScanResult struct {
	Hits      []Hit
	TimedOut  []string
	Truncated bool
}

// Scan matches m over the entries next pages through, newest first, until
// the caps of o stop it. Hidden entries never reach it: the pager reads
// only what the caller may read, so they consume no cap.
func (m *Matcher) Scan(ctx context.Context, next Pager, pageSize int, o ScanOptions) (*ScanResult, error) {
	var (
		res         ScanResult
		scanned     int
		chars       int
		last        *persist.Entry
		totalExpiry = time.Now().Add(o.RegexTotal)
	)
	for {
		page, err := next(ctx, last)
		if err != nil {
			return nil, err
		}
		for i := range page {
			if scanned >= o.MaxScanned || chars >= o.CharBudget {
				// Another readable, matching row exists: the scan was cut.
				res.Truncated = true
				return res.cut(o.MaxMatches), nil
			}
			ent := &page[i]
			scanned++
			chars += utf8.RuneCountInString(ent.Text)
			lines := outline.SplitLines(ent.Text)
			var deadline time.Time
			if m.opt.Regex {
				if !time.Now().Before(totalExpiry) {
					res.Truncated = true // the whole-scan regex budget is spent
					return res.cut(o.MaxMatches), nil
				}
				deadline = time.Now().Add(o.RegexTimeout)
				if totalExpiry.Before(deadline) {
					deadline = totalExpiry
				}
			}
			ms, err := m.Find(lines, o.MaxMatches+1-len(res.Hits), deadline)
			if errors.Is(err, ErrTimeout) {
				if !time.Now().Before(totalExpiry) {
					res.Truncated = true
					return res.cut(o.MaxMatches), nil
				}
				res.TimedOut = append(res.TimedOut, ent.ID)
				continue
			}
			for _, mt := range ms {
				res.Hits = append(res.Hits, Hit{Entry: ent, Lines: lines, Match: mt})
			}
			if len(res.Hits) > o.MaxMatches {
				return res.cut(o.MaxMatches), nil
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if len(page) < pageSize {
			return res.cut(o.MaxMatches), nil
		}
		last = &page[len(page)-1]
	}
}

// cut keeps the first max hits; one more found means more exist.
func (r *ScanResult) cut(max int) *ScanResult {
	if len(r.Hits) > max {
		r.Hits, r.Truncated = r.Hits[:max], true
	}
	return r
}
