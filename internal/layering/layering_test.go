package layering_test

import (
	"strings"
	"testing"

	"github.com/contextd/contextd/internal/layering"
)

// TestLayering: every import of the module points down the table of
// layering.Areas, and the facade and config link neither mcp-go nor a
// database driver.
func TestLayering(t *testing.T) {
	vs, err := layering.Check("../..", "github.com/contextd/contextd")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		t.Error(v)
	}
}

// TestCheckFindsUpwardEdges: the check reports an upward import, an
// import of a test kit from engine code and a forbidden module, and lets
// a downward import and a test file's upward one through (a module
// written for the test, so the check cannot pass by finding nothing).
func TestCheckFindsUpwardEdges(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"index/a.go":                "package index\nimport _ \"m/internal/follow\"\n",
		"index/a_test.go":           "package index\nimport _ \"m/server\"\n",
		"internal/follow/f.go":      "package follow\nimport _ \"m/persist\"\nimport _ \"m/internal/testtier\"\n",
		"internal/testtier/t.go":    "package testtier\n",
		"persist/p.go":              "package persist\n",
		"server/s.go":               "package server\n",
		"config/c.go":               "package config\nimport _ \"m/persist/sqlite\"\n",
		"persist/sqlite/s.go":       "package sqlite\nimport _ \"modernc.org/sqlite\"\n",
		"index/testdata/skipped.go": "package skipped\nimport _ \"m/server\"\n",
		"internal/lab/bench/b.go":   "package bench\nimport _ \"m/server\"\nimport _ \"m/internal/testtier\"\n",
		"somewhere/new/unlisted.go": "package unlisted\n",
	}
	for name, src := range files {
		writeFile(t, dir, name, src)
	}
	vs, err := layering.Check(dir, "m")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range vs {
		got = append(got, v.From+" -> "+v.To)
	}
	want := []string{
		"config -> modernc.org/sqlite",
		"index -> internal/follow",
		"internal/follow -> internal/testtier",
		"somewhere/new -> ",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
