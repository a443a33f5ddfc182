package contextd

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// untar extracts the gzipped tar archive at path into dir.
func untar(t *testing.T, path, dir string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, filepath.FromSlash(h.Name))
		if !strings.HasPrefix(p, dir+string(filepath.Separator)) {
			t.Fatalf("archive entry %q escapes the directory", h.Name)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestFTSReindexOnAnalyzerUpgrade: testdata/upgrade holds a
// database and its index snapshot written by contextd before analyzer
// version 2 (Bleve's word tokenizer: fmt.Println one token, where
// Println found nothing). Opening it rebuilds the snapshot from SQL with
// progress, and Println, yaml, example and resume then find their
// entries; the next start keeps the rebuilt snapshot.
func TestFTSReindexOnAnalyzerUpgrade(t *testing.T) {
	dir := t.TempDir()
	untar(t, filepath.Join("testdata", "upgrade", "analyzer-v1.tar.gz"), dir)
	db := filepath.Join(dir, "ctx.db")
	meta, err := os.ReadFile(filepath.Join(db+".index", "fts.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(meta), "analyzer") {
		t.Fatalf("the fixture is not an old snapshot: %s", meta)
	}
	ctx := WithPrincipal(context.Background(), Principal{ID: "alice"})
	var progress bytes.Buffer
	eng, err := Open(ctx, Config{DBPath: db, FTS: FTSConfig{Progress: &progress}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(progress.String(), "analyzer changed") || !strings.Contains(progress.String(), "rebuilt 3 entries") {
		t.Errorf("progress does not report the rebuild:\n%s", progress.String())
	}
	for _, q := range []string{"Println", "yaml", "example", "resume"} {
		res, err := eng.FTSSearch(ctx, FTSSearchRequest{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		if res.Count != 1 {
			t.Errorf("%q after the upgrade: %d results, want 1", q, res.Count)
		}
	}
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	progress.Reset()
	eng, err = Open(ctx, Config{DBPath: db, FTS: FTSConfig{Progress: &progress}})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	if strings.Contains(progress.String(), "rebuilding") {
		t.Errorf("the upgraded snapshot was rebuilt again:\n%s", progress.String())
	}
	res, err := eng.FTSSearch(ctx, FTSSearchRequest{Query: "Println"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Count != 1 {
		t.Errorf("Println after a restart: %d results", res.Count)
	}
}
