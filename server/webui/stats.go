package webui

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/contextd/contextd"
)

// bar is one bar of a horizontal bar chart, laid out for inline SVG.
type bar struct {
	Label string
	Value string
	Y     int // top of the row
	W     int // the bar's width in px
}

// chart is one horizontal bar chart.
type chart struct {
	Title  string
	Bars   []bar
	Height int
}

const (
	chartRow   = 24  // px per bar
	chartWidth = 320 // px of the longest bar
)

func newChart(title string, labels []string, values []float64, format func(float64) string) chart {
	c := chart{Title: title, Height: max(len(labels), 1) * chartRow}
	top := 0.0
	for _, v := range values {
		top = max(top, v)
	}
	for i, l := range labels {
		w := 0
		if top > 0 {
			w = int(values[i] / top * chartWidth)
		}
		if values[i] > 0 {
			w = max(w, 1)
		}
		if r := []rune(l); len(r) > 22 {
			l = string(r[:21]) + "…"
		}
		c.Bars = append(c.Bars, bar{Label: l, Value: format(values[i]), Y: i * chartRow, W: w})
	}
	return c
}

func count(v float64) string { return fmt.Sprintf("%.0f", v) }

type statsData struct {
	S      *contextd.Statistics
	Charts []chart
}

// monthsShown is how many months the entries-over-time chart covers;
// monthCap is the largest count it finds for one month (shown as "1000+").
// The count probes search_context's pages, and a probe at offset k reads
// k rows: uncapped, a month of 100,000 entries made the page take 5.8 s.
const (
	monthsShown = 12
	monthCap    = 1000
)

func (u *UI) statsPage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	s, err := u.eng.Statistics(ctx)
	if err != nil {
		u.fail(w, r, err)
		return
	}
	d := statsData{S: s}
	labels, values, err := u.entriesPerMonth(ctx, time.Now().UTC(), s.TotalEntries)
	if err != nil {
		u.fail(w, r, err)
		return
	}
	d.Charts = append(d.Charts, newChart(fmt.Sprintf("Entries per month (last 12 months; up to %d counted)", monthCap), labels, values,
		func(v float64) string {
			if v >= monthCap {
				return fmt.Sprintf("%d+", monthCap)
			}
			return count(v)
		}))
	labels, values = nil, nil
	for _, t := range s.MostActiveThreads {
		labels, values = append(labels, t.ThreadID), append(values, float64(t.Count))
	}
	d.Charts = append(d.Charts, newChart("Entries per thread (most active)", labels, values, count))
	labels, values = nil, nil
	src := make([]string, 0, len(s.BySource))
	for k := range s.BySource {
		src = append(src, k)
	}
	slices.Sort(src)
	for _, k := range src {
		labels, values = append(labels, k), append(values, float64(s.BySource[k]))
	}
	d.Charts = append(d.Charts, newChart("Entries per source", labels, values, count))
	labels, values = nil, nil
	if s.DatabaseSizeMB != nil {
		labels, values = append(labels, "database"), append(values, *s.DatabaseSizeMB)
	}
	if s.EmbeddingsSizeMB != nil {
		labels, values = append(labels, "embeddings"), append(values, *s.EmbeddingsSizeMB)
	}
	if len(labels) > 0 {
		d.Charts = append(d.Charts, newChart("Storage (MB)", labels, values, func(v float64) string { return fmt.Sprintf("%.2f MB", v) }))
	}
	embedded := 0
	if f := s.SemanticSearch.SemanticFigures; f != nil {
		embedded = f.ContextCount
	}
	d.Charts = append(d.Charts, newChart("Index coverage (entries)", []string{"readable", "full-text indexed", "embedded"},
		[]float64{float64(s.TotalEntries), float64(s.FTS.IndexedEntries), float64(embedded)}, count))
	u.render(w, r, "stats", "Statistics", d)
}

// entriesPerMonth counts the caller's readable entries created in each of
// the last monthsShown months. No tool returns a count by date, and the
// page must see only what the tools show the caller, so each month's
// count is found by probing search_context's pages: an entry at offset k
// exists iff the month holds more than k, a binary search of about
// log2(monthCap) one-row pages per month.
func (u *UI) entriesPerMonth(ctx context.Context, now time.Time, total int) ([]string, []float64, error) {
	labels := make([]string, monthsShown)
	values := make([]float64, monthsShown)
	first := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC).AddDate(0, -(monthsShown - 1), 0)
	for i := range monthsShown {
		start := first.AddDate(0, i, 0)
		end := start.AddDate(0, 1, -1)
		labels[i] = start.Format("2006-01")
		f := contextd.SearchFilter{StartDate: start.Format("2006-01-02"), EndDate: end.Format("2006-01-02")}
		exists := func(k int) (bool, error) {
			res, err := u.eng.Search(ctx, contextd.SearchRequest{SearchFilter: f, Limit: 1, Offset: k})
			if err != nil {
				return false, err
			}
			return res.Count > 0, nil
		}
		// The smallest k in [0, min(total, monthCap)] with no entry at
		// offset k (monthCap when there is one at every offset below it).
		lo, hi := 0, min(total, monthCap)
		for lo < hi {
			mid := (lo + hi) / 2
			ok, err := exists(mid)
			if err != nil {
				return nil, nil, err
			}
			if ok {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		values[i] = float64(lo)
	}
	return labels, values, nil
}
