package main

// contextd bench at a tiny size: the command runs end to end on
// both backends and prints every row of the table with a figure in each
// backend's column, and --json carries the same rows.

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/contextd/contextd/internal/lab/bench"
)

func TestBenchCommandTiny(t *testing.T) {
	t.Parallel()
	env := os.LookupEnv
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"bench", "--size", "200", "--queries", "4", "-data", t.TempDir()}, env, nil, &out, &errOut); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	md := out.String()
	if strings.Contains(md+errOut.String(), "issue ") {
		t.Errorf("bench output cites an issue number:\n%s%s", md, errOut.String())
	}
	for _, want := range []string{
		"| tool | measurement | in-process | native | native / in-process |",
		"| store | store_context_batch, 100 per call, acknowledged |",
		"| search_context | metadata status=active (indexed, 1/2) (median / p99 ms) |",
		"| search_context | start_date..end_date (newer half) (median / p99 ms) |",
		"| fts_search_context |", "| semantic_search_context |", "| hybrid_search_context |", "| grep_context |",
		"| start-up | start-up with index snapshots (open / ready ms) |",
		"| start-up | start-up without index snapshots (rebuilt from SQL) (open / ready ms) |",
		"| in-process | after the searches |", "| native | after loading |",
		"| steady-state RSS (MiB) |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the table lacks %q:\n%s", want, md)
		}
	}
	rows := 0
	for _, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| tool ") || strings.HasPrefix(line, "| backend ") || strings.HasPrefix(line, "| target ") {
			continue
		}
		if strings.Contains(line, " entries/s |") || strings.Contains(line, " ms) |") {
			rows++
			cells := strings.Split(strings.Trim(line, "|"), "|")
			if len(cells) != 5 {
				t.Errorf("row %q has %d cells, want 5", line, len(cells))
				continue
			}
			for i, c := range cells[2:] {
				if strings.TrimSpace(c) == "–" || strings.TrimSpace(c) == "" {
					t.Errorf("row %q: column %d is empty", line, i+2)
				}
			}
		}
	}
	if rows < 20 {
		t.Errorf("%d measurement rows, want at least 20:\n%s", rows, md)
	}

	out.Reset()
	if code := run(context.Background(), []string{"bench", "--size", "120", "--queries", "2", "--backend", "native", "--json", "-data", t.TempDir()}, env, nil, &out, &errOut); code != exitOK {
		t.Fatalf("--json: exit %d: %s", code, errOut.String())
	}
	var rep bench.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("--json output: %v\n%s", err, out.String())
	}
	if rep.Size != 120 || len(rep.Backends) != 1 || rep.Backends[0] != "native" || len(rep.Rows) < 20 || len(rep.Memory) != 3 {
		t.Errorf("JSON report: size %d, backends %v, %d rows, %d memory points", rep.Size, rep.Backends, len(rep.Rows), len(rep.Memory))
	}
	for _, r := range rep.Rows {
		if v, ok := r.Values["native"]; !ok || v == (bench.Value{}) {
			t.Errorf("row %s %s has no native figure", r.Group, r.Name)
		}
	}
}

func TestBenchCommandBadFlags(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--size", "0"}, {"--queries", "-1"}, {"--backend", "postgres"}, {"extra"}, {"--nope"}, {"--markdown", "--json"}} {
		var out, errOut bytes.Buffer
		if code := run(context.Background(), append([]string{"bench"}, args...), os.LookupEnv, nil, &out, &errOut); code != exitUsage {
			t.Errorf("bench %v: exit %d, want %d (%s)", args, code, exitUsage, errOut.String())
		}
		if out.Len() != 0 || errOut.Len() == 0 {
			t.Errorf("bench %v: stdout %q, stderr %q", args, out.String(), errOut.String())
		}
	}
}

// TestBenchLoadTiny runs `contextd bench --load` at a tiny scale (3
// clients for 2 s over a database of 50 entries of another principal):
// the JSON report has one in-process run with requests on every tool kind
// and zero errors, lost writes and foreign results, and every
// acknowledged write was verified.
func TestBenchLoadTiny(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	args := []string{"bench", "--load", "--clients", "3", "--duration", "2s", "--size", "50", "--json", "-data", t.TempDir()}
	if code := run(context.Background(), args, os.LookupEnv, nil, &out, &errOut); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var rep bench.LoadReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("--json output: %v\n%s", err, out.String())
	}
	if len(rep.Runs) != 1 || rep.Runs[0].Backend != "in-process" || rep.Size != 50 {
		t.Fatalf("report: %+v", rep)
	}
	r := rep.Runs[0]
	if r.Clients != 3 || r.Requests == 0 || r.Writes == 0 || r.Verified == 0 || r.Failed() != "" {
		t.Fatalf("load: %d clients, %d requests, %d writes, %d verified; %s", r.Clients, r.Requests, r.Writes, r.Verified, r.Failed())
	}
	tools := map[string]bool{}
	for _, ts := range r.Tools {
		tools[ts.Tool] = ts.Calls > 0 && ts.P50MS > 0 && ts.P99MS >= ts.P50MS
	}
	for _, want := range []string{"store_context", "get_context_by_ids", "search_context", "all"} {
		if !tools[want] {
			t.Errorf("no latency figures for %s: %+v", want, r.Tools)
		}
	}
}

func TestBenchLoadBadFlags(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--load", "--clients", "0"}, {"--load", "--duration", "0s"}, {"--load", "--duration", "soon"}, {"--load", "--keep", "x"}} {
		var out, errOut bytes.Buffer
		if code := run(context.Background(), append([]string{"bench"}, args...), os.LookupEnv, nil, &out, &errOut); code != exitUsage {
			t.Errorf("bench %v: exit %d, want %d (%s)", args, code, exitUsage, errOut.String())
		}
	}
}
