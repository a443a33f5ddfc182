package loadtest

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"
)

// Result is what a load measured and found.
type Result struct {
	Clients   int     `json:"clients"`
	DurationS float64 `json:"duration_s"`
	Requests  int     `json:"requests"`
	PerS      float64 `json:"requests_per_s"`
	// Errors are transport and tool errors; LostWrites are acknowledged
	// writes whose effect did not read back (during the load or in the
	// final verification); Foreign are results naming another
	// principal's entry. A sound server has zero of each.
	Errors     int `json:"errors"`
	LostWrites int `json:"lost_writes"`
	Foreign    int `json:"foreign_results"`
	// Writes are the acknowledged stores, updates and deletes; Verified
	// the entries read back (live ones with their last text, deleted ones
	// absent) after the load.
	Writes   int         `json:"acknowledged_writes"`
	Verified int         `json:"verified_entries"`
	Tools    []ToolStats `json:"tools"` // by tool name, then "all"
	Samples  []string    `json:"error_samples,omitempty"`
}

// ToolStats are one tool's calls and latency percentiles.
type ToolStats struct {
	Tool   string  `json:"tool"`
	Calls  int     `json:"calls"`
	Errors int     `json:"errors"`
	P50MS  float64 `json:"p50_ms"`
	P90MS  float64 `json:"p90_ms"`
	P99MS  float64 `json:"p99_ms"`
	MaxMS  float64 `json:"max_ms"`
}

// Failed says what went wrong, or "" for a clean load.
func (r *Result) Failed() string {
	if r.Errors == 0 && r.LostWrites == 0 && r.Foreign == 0 {
		return ""
	}
	return fmt.Sprintf("%d errors, %d lost writes, %d foreign results (%s)", r.Errors, r.LostWrites, r.Foreign, strings.Join(r.Samples, "; "))
}

func summarize(ws []*worker, elapsed time.Duration) *Result {
	r := &Result{Clients: len(ws), DurationS: elapsed.Seconds()}
	byTool := map[string][]time.Duration{}
	fails := map[string]int{}
	for _, w := range ws {
		for tool, l := range w.lat {
			byTool[tool] = append(byTool[tool], l...)
		}
		for tool, n := range w.fails {
			fails[tool] += n
			r.Errors += n
		}
		r.LostWrites += w.lost
		r.Foreign += w.foreign
		r.Writes += w.writes
		r.Verified += w.verified
		r.Samples = append(r.Samples, w.samp...)
	}
	if len(r.Samples) > 10 {
		r.Samples = r.Samples[:10]
	}
	var all []time.Duration
	names := make([]string, 0, len(byTool))
	for tool := range byTool {
		names = append(names, tool)
	}
	sort.Strings(names)
	for _, tool := range names {
		r.Tools = append(r.Tools, toolStats(tool, byTool[tool], fails[tool]))
		all = append(all, byTool[tool]...)
	}
	r.Requests = len(all)
	r.Tools = append(r.Tools, toolStats("all", all, r.Errors))
	if elapsed > 0 {
		r.PerS = float64(r.Requests) / elapsed.Seconds()
	}
	return r
}

func toolStats(tool string, lat []time.Duration, errs int) ToolStats {
	s := ToolStats{Tool: tool, Calls: len(lat), Errors: errs}
	if len(lat) == 0 {
		return s
	}
	slices.Sort(lat)
	pct := func(p float64) float64 { return ms(lat[min(len(lat)-1, int(p*float64(len(lat))))]) }
	s.P50MS, s.P90MS, s.P99MS, s.MaxMS = pct(0.50), pct(0.90), pct(0.99), ms(lat[len(lat)-1])
	return s
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// Markdown writes the summary line and the per-tool latency table.
func (r *Result) Markdown(w io.Writer) {
	fmt.Fprintf(w, "%d clients, %.0f s: %d requests, %.0f req/s; %d errors, %d lost writes, %d foreign results; %d acknowledged writes, %d entries verified afterwards\n\n",
		r.Clients, r.DurationS, r.Requests, r.PerS, r.Errors, r.LostWrites, r.Foreign, r.Writes, r.Verified)
	fmt.Fprintln(w, "| tool | calls | errors | p50 | p90 | p99 | max |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- | --- |")
	for _, t := range r.Tools {
		name := "`" + t.Tool + "`"
		if t.Tool == "all" {
			name = "**all**"
		}
		fmt.Fprintf(w, "| %s | %d | %d | %s | %s | %s | %s |\n", name, t.Calls, t.Errors, msText(t.P50MS), msText(t.P90MS), msText(t.P99MS), msText(t.MaxMS))
	}
	for _, s := range r.Samples {
		fmt.Fprintf(w, "\n- %s", s)
	}
	if len(r.Samples) > 0 {
		fmt.Fprintln(w)
	}
}

// msText prints milliseconds with three significant digits.
func msText(v float64) string {
	switch {
	case v >= 1000:
		return fmt.Sprintf("%.2f s", v/1000)
	case v >= 100:
		return fmt.Sprintf("%.0f ms", v)
	case v >= 10:
		return fmt.Sprintf("%.1f ms", v)
	}
	return fmt.Sprintf("%.2f ms", v)
}
