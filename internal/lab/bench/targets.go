package bench

import (
	"fmt"
	"io"
)

// The performance targets, stated for 100,000 entries and the default
// configuration (the in-process backend).
const (
	TargetFilterMedianMS = 5
	TargetStartupMS      = 1000
	TargetRSSMiB         = 250
)

// Check is one target's verdict.
type Check struct {
	Target string  `json:"target"`
	Got    float64 `json:"got"`
	Limit  float64 `json:"limit"`
	Where  string  `json:"where"`
	Met    bool    `json:"met"`
}

// Checks evaluates the targets on backend's figures.
func (r *Report) Checks(backend string) []Check {
	var out []Check
	worst := Check{Target: "search_context median, every filter (ms)", Limit: TargetFilterMedianMS}
	for _, row := range r.Rows {
		if v, ok := row.Values[backend]; ok && row.Group == "search_context" && v.MedianMS >= worst.Got {
			worst.Got, worst.Where = v.MedianMS, row.Name
		}
	}
	out = append(out, worst)
	for _, row := range r.Rows {
		if v, ok := row.Values[backend]; ok && row.Kind == "startup" && row.Name == "start-up with index snapshots" {
			out = append(out, Check{Target: "start-up with snapshots until searchable (ms)", Got: v.ReadyMS, Limit: TargetStartupMS, Where: "open + first full-text and semantic search"})
		}
	}
	rss := Check{Target: "steady-state RSS (MiB)", Limit: TargetRSSMiB}
	for _, p := range r.Memory {
		if p.Backend == backend && p.When != "after loading" && p.RSS >= rss.Got {
			rss.Got, rss.Where = p.RSS, p.When
		}
	}
	out = append(out, rss)
	for i := range out {
		out[i].Met = out[i].Got <= out[i].Limit
	}
	return out
}

// targets writes the checks of every backend measured: the issue states
// them for the default configuration, and the native column is held to
// the same limits so a regression there shows too.
func (r *Report) targets(w io.Writer) {
	if len(r.Backends) == 0 {
		return
	}
	fmt.Fprintf(w, "\nTargets (stated for 100,000 entries, default configuration; every backend measured):\n\n| backend | target | measured | limit | worst case | met |\n| --- | --- | --- | --- | --- | --- |\n")
	for _, b := range r.Backends {
		for _, c := range r.Checks(b) {
			met := "yes"
			if !c.Met {
				met = "**no**"
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", b, c.Target, num(c.Got), num(c.Limit), c.Where, met)
		}
	}
}
