package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"
)

// Report is the result of a run.
type Report struct {
	Date      string   `json:"date"`
	CPU       string   `json:"cpu"`
	GoVersion string   `json:"go_version"`
	Platform  string   `json:"platform"`
	Size      int      `json:"size"`
	Corpus    string   `json:"corpus"`
	Composed  int      `json:"corpus_composed,omitempty"` // entries composed from sentences
	CorpusMiB float64  `json:"corpus_text_mib"`
	Queries   int      `json:"queries_per_row"`
	Backends  []string `json:"backends"`
	Rows      []Row    `json:"rows"`
	Memory    []Point  `json:"memory"`
	ElapsedS  float64  `json:"elapsed_s"`
	// Targets holds the targets' verdicts by backend (filled by JSON).
	Targets map[string][]Check `json:"targets,omitempty"`
}

// Row is one measurement on each backend.
type Row struct {
	Group string `json:"group"`
	Name  string `json:"name"`
	// Kind is "latency" (Median and P99 in ms), "rate" (Value in
	// entries/s), "startup" (Median: open, P99: ready, in ms) or "recall"
	// (Recall, a share, over N queries).
	Kind   string           `json:"kind"`
	Values map[string]Value `json:"values"` // by backend
}

// Value is a row's figure on one backend.
type Value struct {
	MedianMS float64 `json:"median_ms,omitempty"`
	P99MS    float64 `json:"p99_ms,omitempty"`
	OpenMS   float64 `json:"open_ms,omitempty"`
	ReadyMS  float64 `json:"ready_ms,omitempty"`
	PerS     float64 `json:"per_s,omitempty"`
	Recall   float64 `json:"recall,omitempty"`
	N        int     `json:"n,omitempty"`
	// ReadMiB is what the process read from storage during a latency
	// row's calls (the page cache did not hold it).
	ReadMiB float64 `json:"read_mib,omitempty"`
}

// Point is the memory of one backend's process at one moment.
type Point struct {
	Backend string `json:"backend"`
	When    string `json:"when"`
	Memory
}

func newReport(opt Options, c *Corpus) *Report {
	bytes := 0 // composing the texts to count them is about 1 s at 1M
	for i := range c.Len() {
		bytes += len(c.Text(i))
	}
	return &Report{
		Date: time.Now().UTC().Format("2006-01-02"), CPU: cpuName(), GoVersion: runtime.Version(),
		Platform: runtime.GOOS + "/" + runtime.GOARCH, Size: c.Len(), Corpus: c.Name, Composed: c.Composed(),
		CorpusMiB: float64(bytes) / (1 << 20), Queries: opt.Queries, Backends: opt.Backends,
	}
}

// row returns the row named name, adding it.
func (r *Report) row(group, name, kind string) *Row {
	for i := range r.Rows {
		if r.Rows[i].Group == group && r.Rows[i].Name == name {
			return &r.Rows[i]
		}
	}
	r.Rows = append(r.Rows, Row{Group: group, Name: name, Kind: kind, Values: map[string]Value{}})
	return &r.Rows[len(r.Rows)-1]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// latency records a row's sorted latencies, median and p99 (nearest
// rank), and what its calls read from storage.
func (r *Report) latency(group, name, backend string, c calls) {
	sorted := c.lat
	if len(sorted) == 0 {
		return
	}
	p99 := sorted[min(len(sorted)-1, (len(sorted)*99+99)/100-1)]
	r.row(group, name, "latency").Values[backend] = Value{MedianMS: ms(sorted[len(sorted)/2]), P99MS: ms(p99), N: len(sorted), ReadMiB: float64(c.read) / (1 << 20)}
}

func (r *Report) rate(group, name, backend string, perS float64) {
	r.row(group, name, "rate").Values[backend] = Value{PerS: perS}
}

func (r *Report) recall(group, name, backend string, recall float64, n int) {
	r.row(group, name, "recall").Values[backend] = Value{Recall: recall, N: n}
}

func (r *Report) startup(name, backend string, open, ready time.Duration) {
	r.row("start-up", name, "startup").Values[backend] = Value{OpenMS: ms(open), ReadyMS: ms(ready)}
}

func (r *Report) memory(backend, when string, read func() (Memory, error)) error {
	m, err := read()
	if err != nil {
		return err
	}
	r.Memory = append(r.Memory, Point{Backend: backend, When: when, Memory: m})
	return nil
}

// JSON writes the report as indented JSON.
func (r *Report) JSON(w io.Writer) error {
	r.Targets = map[string][]Check{}
	for _, b := range r.Backends {
		r.Targets[b] = r.Checks(b)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// cell formats a row's value on one backend, and the number its ratio
// compares (median, rate or ready time).
func (row *Row) cell(backend string) (string, float64, bool) {
	v, ok := row.Values[backend]
	if !ok {
		return "–", 0, false
	}
	switch row.Kind {
	case "latency":
		s := fmt.Sprintf("%s / %s", num(v.MedianMS), num(v.P99MS))
		if v.ReadMiB >= minReadMiB {
			s += fmt.Sprintf(" (%s MiB read)", num(v.ReadMiB))
		}
		return s, v.MedianMS, true
	case "rate":
		return fmt.Sprintf("%s entries/s", num(v.PerS)), v.PerS, true
	case "recall":
		return fmt.Sprintf("%.3f", v.Recall), v.Recall, true
	default:
		return fmt.Sprintf("%s / %s", num(v.OpenMS), num(v.ReadyMS)), v.ReadyMS, true
	}
}

// minReadMiB is the least storage read a latency cell shows.
const minReadMiB = 0.1

// num formats a figure with three significant digits and thousands
// separators.
func num(x float64) string {
	var s string
	switch {
	case x >= 100:
		s = fmt.Sprintf("%.0f", x)
	case x >= 10:
		s = fmt.Sprintf("%.1f", x)
	default:
		s = fmt.Sprintf("%.2f", x)
	}
	intPart, frac, _ := strings.Cut(s, ".")
	for i := len(intPart) - 3; i > 0; i -= 3 {
		intPart = intPart[:i] + "," + intPart[i:]
	}
	if frac != "" {
		return intPart + "." + frac
	}
	return intPart
}

// unit names what a row's cells hold.
func (row *Row) unit() string {
	switch row.Kind {
	case "latency":
		return "median / p99 ms"
	case "startup":
		return "open / ready ms"
	}
	return ""
}

// Markdown writes the report as Markdown tables: one row per measurement
// with a column per backend and the ratio of the second backend to the
// first, then memory.
func (r *Report) Markdown(w io.Writer) {
	corpus := r.Corpus
	if r.Composed > 0 {
		corpus += fmt.Sprintf(": %s of the entries composed from its sentences", num(float64(r.Composed)))
	}
	fmt.Fprintf(w, "contextd bench: %s entries (%s, %.1f MiB of text), %s, %s, %s %s; %d calls per search row, mcp-go in-process client\n\n",
		num(float64(r.Size)), corpus, r.CorpusMiB, r.Date, r.CPU, r.GoVersion, r.Platform, r.Queries)
	fmt.Fprint(w, "| tool | measurement |")
	for _, b := range r.Backends {
		fmt.Fprintf(w, " %s |", b)
	}
	if len(r.Backends) == 2 {
		fmt.Fprintf(w, " %s / %s |", r.Backends[1], r.Backends[0])
	}
	fmt.Fprint(w, "\n| --- | --- |"+strings.Repeat(" --- |", len(r.Backends)))
	if len(r.Backends) == 2 {
		fmt.Fprint(w, " --- |")
	}
	fmt.Fprintln(w)
	for i := range r.Rows {
		row := &r.Rows[i]
		name := row.Name
		if u := row.unit(); u != "" {
			name += " (" + u + ")"
		}
		fmt.Fprintf(w, "| %s | %s |", row.Group, name)
		var vals []float64
		for _, b := range r.Backends {
			s, v, ok := row.cell(b)
			fmt.Fprintf(w, " %s |", s)
			if ok {
				vals = append(vals, v)
			}
		}
		if len(r.Backends) == 2 {
			if len(vals) == 2 && vals[0] > 0 {
				fmt.Fprintf(w, " %.2f |", vals[1]/vals[0])
			} else {
				fmt.Fprint(w, " – |")
			}
		}
		fmt.Fprintln(w)
	}
	if r.readFromStorage() {
		fmt.Fprint(w, "\nA search row's \"MiB read\" is what the process read from storage during its calls (`read_bytes` of `/proc/self/io`): the page cache did not hold those pages of the database or the index, and the calls waited for the disk as well as the processor.\n")
	}
	fmt.Fprint(w, "\nMemory (MiB; after what the idle server does: SQLite's page caches and file maps released, the vector index's unused capacity returned, a collection, free pages returned):\n\n")
	fmt.Fprint(w, "| backend | when | RSS | anonymous | file-backed | Go heap in use | Go heap by component |\n| --- | --- | --- | --- | --- | --- | --- |\n")
	for _, p := range r.Memory {
		var parts []string
		for _, c := range p.Components {
			if c.MiB >= 0.5 {
				parts = append(parts, fmt.Sprintf("%s %s", c.Name, num(c.MiB)))
			}
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s |\n", p.Backend, p.When, num(p.RSS), num(p.RSSAnon), num(p.RSSFile), num(p.HeapInuse), strings.Join(parts, "; "))
	}
	fmt.Fprintf(w, "\nThe bench drops the corpus (%.1f MiB of text) once it is stored, before measuring memory; it keeps the queries. Elapsed: %.0f s.\n", r.CorpusMiB, r.ElapsedS)
	r.targets(w)
}

// readFromStorage reports whether a latency cell shows a storage read.
func (r *Report) readFromStorage() bool {
	for _, row := range r.Rows {
		for _, v := range row.Values {
			if row.Kind == "latency" && v.ReadMiB >= minReadMiB {
				return true
			}
		}
	}
	return false
}
