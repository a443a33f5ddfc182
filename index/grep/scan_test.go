package grep

import (
	"context"
	"fmt"
	"testing"

	"github.com/contextd/contextd/persist"
)

// pages serves entries newest first in pages of size, as the engine's
// keyset pager does.
func pages(ents []persist.Entry, size int) (Pager, *int) {
	reads := 0
	return func(_ context.Context, last *persist.Entry) ([]persist.Entry, bool, error) {
		reads++
		start := 0
		if last != nil {
			for i := range ents {
				if ents[i].ID == last.ID {
					start = i + 1
				}
			}
		}
		end := min(start+size, len(ents))
		// Copies: the scan drops each entry's text once matched.
		return append([]persist.Entry(nil), ents[start:end]...), end-start == size, nil
	}, &reads
}

func TestScanCaps(t *testing.T) {
	var ents []persist.Entry
	for i := range 10 {
		ents = append(ents, persist.Entry{ID: fmt.Sprintf("e%d", i), Text: "one needle\ntwo needle"})
	}
	m, err := Compile(Options{Pattern: "needle"})
	if err != nil {
		t.Fatal(err)
	}
	base := ScanOptions{MaxMatches: 100, MaxScanned: 100, CharBudget: 1 << 20}
	cases := []struct {
		name      string
		o         func(*ScanOptions)
		hits      int
		truncated bool
	}{
		{"everything", func(*ScanOptions) {}, 20, false},
		{"exact fit is not truncated", func(o *ScanOptions) { o.MaxMatches = 20 }, 20, false},
		{"one more match truncates", func(o *ScanOptions) { o.MaxMatches = 19 }, 19, true},
		{"entries cap", func(o *ScanOptions) { o.MaxScanned = 3 }, 6, true},
		{"entries cap at the end", func(o *ScanOptions) { o.MaxScanned = 10 }, 20, false},
		{"character budget", func(o *ScanOptions) { o.CharBudget = 30 }, 4, true},
	}
	for _, c := range cases {
		o := base
		c.o(&o)
		next, _ := pages(ents, 4)
		res, err := m.Scan(context.Background(), next, o)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) != c.hits || res.Truncated != c.truncated {
			t.Errorf("%s: %d hits truncated=%v, want %d %v", c.name, len(res.Hits), res.Truncated, c.hits, c.truncated)
		}
	}
	// Newest first across pages, with the context lines of each hit.
	next, reads := pages(ents, 4)
	content := base
	content.Content, content.ContextLines = true, 1
	res, err := m.Scan(context.Background(), next, content)
	if err != nil {
		t.Fatal(err)
	}
	if *reads != 3 || res.Hits[19].ID != "e9" || res.Hits[19].Line != 1 {
		t.Fatalf("reads %d, last hit %+v", *reads, res.Hits[19])
	}
	before, after := res.Hits[0].Before, res.Hits[0].After
	if res.Hits[0].Text != "one needle" || len(before) != 0 || len(after) != 1 || after[0] != "two needle" {
		t.Fatalf("context: %q %q %q", res.Hits[0].Text, before, after)
	}
}
