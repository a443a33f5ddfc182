package main

import (
	"path/filepath"
	"testing"
)

// TestRepoDataFindsCranfield: started anywhere inside a clone (here the
// package directory, two levels below the root), the eval and bench
// commands find the Cranfield collection in the repository's testdata.
func TestRepoDataFindsCranfield(t *testing.T) {
	dir := repoData(filepath.Join("testdata", "cranfield"))
	if !filepath.IsAbs(dir) {
		t.Fatalf("repoData = %q: want the path under the module root", dir)
	}
	col, err := loadCranfield(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(col.Docs) != 1400 || len(col.Queries) != 225 {
		t.Fatalf("loaded %d documents and %d queries, want 1400 and 225", len(col.Docs), len(col.Queries))
	}
	// Outside any clone the path is returned unchanged, so the error names it.
	t.Chdir(t.TempDir())
	if got := repoData(filepath.Join("testdata", "cranfield")); got != filepath.Join("testdata", "cranfield") {
		t.Fatalf("outside a clone repoData = %q", got)
	}
}
