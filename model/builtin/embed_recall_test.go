package builtin

import (
	"bufio"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/contextd/contextd/vector"
)

// embCorpus returns up to n distinct sentences from the comments of the
// Go source tree (a real English corpus every Go toolchain carries), in
// sorted file order so a Go version always yields the same set.
func embCorpus(tb testing.TB, n int) []string {
	tb.Helper()
	split := regexp.MustCompile(`[.!?]\s+`)
	seen := map[string]bool{}
	var out []string
	errDone := fs.SkipAll
	_ = filepath.WalkDir(filepath.Join(runtime.GOROOT(), "src"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return nil
		}
		defer f.Close()
		var para []string
		flush := func() {
			for _, s := range split.Split(strings.Join(para, " "), -1) {
				s = strings.TrimSpace(s)
				if w := len(strings.Fields(s)); w >= 5 && w <= 40 && !seen[s] {
					seen[s] = true
					out = append(out, s)
				}
			}
			para = para[:0]
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if c, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "// "); ok {
				para = append(para, c)
			} else if len(para) > 0 {
				flush()
			}
		}
		flush()
		if len(out) >= n {
			return errDone
		}
		return nil
	})
	if len(out) < n {
		tb.Skipf("only %d sentences in the Go source tree", len(out))
	}
	return out[:n]
}

// embRecall indexes n corpus sentences embedded by the built-in embedder
// with the vector package's defaults and measures recall@10 of 200
// held-out sentences against the exact scan.
func embRecall(t *testing.T, n int) float64 {
	ctx := context.Background()
	sents := embCorpus(t, n+200)
	var e Embedder
	vecs, err := e.Embed(ctx, sents)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := vector.New(e.Dim(), vector.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vecs[:n] {
		if err := ix.Add(uint64(i), v); err != nil {
			t.Fatal(err)
		}
	}
	found, total := 0, 0
	for _, q := range vecs[n:] {
		want, _ := ix.Search(ctx, q, 10, vector.SearchOptions{Exact: true})
		got, _ := ix.Search(ctx, q, 10, vector.SearchOptions{})
		in := map[uint64]bool{}
		for _, h := range want {
			in[h.Key] = true
		}
		for _, h := range got {
			if in[h.Key] {
				found++
			}
		}
		total += len(want)
	}
	return float64(found) / float64(total)
}

// TestEmbedRecallRealCorpus is the recall gate on GloVe sentence vectors
// of a real corpus: 20k sentences here; CONTEXTD_VECTOR_100K=1 runs 100k.
func TestEmbedRecallRealCorpus(t *testing.T) {
	n := 20000
	if os.Getenv("CONTEXTD_VECTOR_100K") != "" {
		n = 100000
	} else if testing.Short() {
		n = 5000
	}
	r := embRecall(t, n)
	t.Logf("recall@10 on %d Go-comment sentences = %.4f", n, r)
	if r < 0.95 {
		t.Fatalf("recall@10 = %.4f, want ≥ 0.95", r)
	}
}
