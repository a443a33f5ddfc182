package main

// contextd bench at a tiny size (issue 17): the command runs end to end on
// both backends and prints every row of the table with a figure in each
// backend's column, and --json carries the same rows.

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/contextd/contextd/internal/bench"
)

func TestBenchCommandTiny(t *testing.T) {
	env := os.LookupEnv
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"bench", "--size", "200", "--queries", "4", "-data", t.TempDir()}, env, nil, &out, &errOut); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	md := out.String()
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
	for _, args := range [][]string{{"--size", "0"}, {"--queries", "-1"}, {"--backend", "postgres"}, {"extra"}, {"--nope"}} {
		var out, errOut bytes.Buffer
		if code := run(context.Background(), append([]string{"bench"}, args...), os.LookupEnv, nil, &out, &errOut); code != exitUsage {
			t.Errorf("bench %v: exit %d, want %d (%s)", args, code, exitUsage, errOut.String())
		}
		if out.Len() != 0 || errOut.Len() == 0 {
			t.Errorf("bench %v: stdout %q, stderr %q", args, out.String(), errOut.String())
		}
	}
}
