package grep

import (
	"context"
	"errors"
	"strings"
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
	// Content keeps each hit's line and ContextLines lines around it
	// (grep_context's content mode); otherwise hits carry no text.
	Content      bool
	ContextLines int
	// LineChars is the longest line a content-mode row shows whole, in
	// code points; a longer one is cut to a window (window.go). Zero means
	// DefaultLineChars.
	LineChars int
}

// Pager reads the next page of entries, newest first, after last (nil for
// the first page), and reports whether more may follow. Pages may be
// short (a store pages by size as well as by count).
type Pager func(ctx context.Context, last *persist.Entry) (page []persist.Entry, more bool, err error)

// Hit is one match in a stored entry. It holds no reference to the entry
// or its text: the lines of a content-mode hit are copies, shared by the
// hits of one entry, so a scan keeps at most one entry's text alive.
type Hit struct {
	ID, Owner, Visibility string
	Match
	Text          string   // the hit's line (content mode)
	Before, After []string // up to ContextLines lines around it (content mode)
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
// only what the caller may read, so they consume no cap. Each entry's
// text is dropped once matched, so the page's memory goes with it.
func (m *Matcher) Scan(ctx context.Context, next Pager, o ScanOptions) (*ScanResult, error) {
	var (
		res         ScanResult
		scanned     int
		chars       int
		last        *persist.Entry
		totalExpiry = time.Now().Add(o.RegexTotal)
	)
	for {
		page, more, err := next(ctx, last)
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
			lines := outline.SplitLines(ent.Text)
			ms, err := m.Find(lines, o.MaxMatches+1-len(res.Hits), deadline)
			if errors.Is(err, ErrTimeout) {
				if !time.Now().Before(totalExpiry) {
					res.Truncated = true
					return res.cut(o.MaxMatches), nil
				}
				res.TimedOut = append(res.TimedOut, ent.ID)
				ent.Text = ""
				continue
			}
			res.addHits(ent, lines, ms, o)
			ent.Text = "" // let the page's largest part go before the next entry
			if len(res.Hits) > o.MaxMatches {
				return res.cut(o.MaxMatches), nil
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if !more || len(page) == 0 {
			return res.cut(o.MaxMatches), nil
		}
		pos := page[len(page)-1]
		last = &persist.Entry{ID: pos.ID, CreatedAt: pos.CreatedAt}
	}
}

// addHits appends the matches of one entry, copying each line a hit
// needs once (strings.Clone: a substring would keep the whole text), and
// cutting long lines to windows (window.go).
func (r *ScanResult) addHits(ent *persist.Entry, lines *outline.Lines, ms []Match, o ScanOptions) {
	w := &windower{l: lines, max: o.LineChars}
	if w.max <= 0 {
		w.max = DefaultLineChars
	}
	type key struct {
		line   int
		before bool
	}
	copies := map[key]string{}
	long := func(i int) bool { return lines.RuneEnd[i]-lines.RuneStart[i] > w.max }
	line := func(i int, before bool) string {
		k := key{i, before && long(i)} // a whole line is one copy
		s, ok := copies[k]
		if !ok {
			s = strings.Clone(w.contextLine(i, before))
			copies[k] = s
		}
		return s
	}
	for _, mt := range ms {
		h := Hit{ID: ent.ID, Owner: ent.Owner, Visibility: ent.Visibility, Match: mt}
		if o.Content {
			if !long(mt.Line) {
				h.Text = line(mt.Line, false)
			} else {
				h.Text = strings.Clone(w.hitLine(mt.Line, mt.Start, mt.End))
			}
			for j := max(0, mt.Line-o.ContextLines); j < mt.Line; j++ {
				h.Before = append(h.Before, line(j, true))
			}
			for j := mt.Line + 1; j <= mt.Line+o.ContextLines && j < lines.Count(); j++ {
				h.After = append(h.After, line(j, false))
			}
		}
		r.Hits = append(r.Hits, h)
	}
}

// cut keeps the first max hits; one more found means more exist.
func (r *ScanResult) cut(max int) *ScanResult {
	if len(r.Hits) > max {
		r.Hits, r.Truncated = r.Hits[:max], true
	}
	return r
}
