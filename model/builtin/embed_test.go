package builtin

import (
	"bufio"
	"context"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/contextd/contextd/internal/goroot"
	"github.com/contextd/contextd/internal/wordvec"
)

func embCos(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// embDistractors returns n English sentences from the doc comments of a
// fixed list of standard-library packages (read from GOROOT, in sorted
// order, so the set is the same on every run of one Go version), none of
// them about cars.
func embDistractors(t *testing.T, n int) []string {
	t.Helper()
	root := filepath.Join(goroot.Dir(), "src")
	carWords := regexp.MustCompile(`(?i)\b(cars?|automobiles?|vehicles?|trucks?|motors?|autos?)\b`)
	var out []string
	seen := map[string]bool{}
	for _, pkg := range []string{"net/http", "os", "strings", "bufio", "io", "time", "sort", "fmt", "encoding/json", "sync", "context", "bytes", "archive/tar", "compress/flate", "database/sql", "crypto/tls"} {
		files, _ := filepath.Glob(filepath.Join(root, pkg, "*.go"))
		sort.Strings(files)
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			fh, err := os.Open(f)
			if err != nil {
				continue
			}
			var para []string
			flush := func() {
				text := strings.Join(para, " ")
				para = para[:0]
				for _, s := range regexp.MustCompile(`[.!?]\s+`).Split(text, -1) {
					s = strings.TrimSpace(s)
					words := strings.Fields(s)
					if len(words) < 6 || len(words) > 30 || carWords.MatchString(s) || seen[s] || strings.ContainsAny(s, "{}()[]=*") {
						continue
					}
					seen[s] = true
					out = append(out, s)
				}
			}
			sc := bufio.NewScanner(fh)
			for sc.Scan() {
				line := strings.TrimSpace(sc.Text())
				if c, ok := strings.CutPrefix(line, "// "); ok {
					para = append(para, c)
				} else {
					flush()
				}
			}
			flush()
			fh.Close()
			if len(out) >= n {
				return out[:n]
			}
		}
	}
	if len(out) < n {
		t.Skipf("only %d doc sentences found under %s", len(out), root)
	}
	return out[:n]
}

// TestEmbedParaphrase is the acceptance check: a paraphrase that shares no
// word with the query ranks in the top 3 among 1,000 unrelated sentences.
func TestEmbedParaphrase(t *testing.T) {
	ctx := context.Background()
	const query = "car engine failure in winter"
	const target = "The automobile would not start in the cold morning"
	docs := append(embDistractors(t, 1000), target)
	var e Embedder
	vecs, err := e.Embed(ctx, append([]string{query}, docs...))
	if err != nil {
		t.Fatal(err)
	}
	q := vecs[0]
	ts := embCos(q, vecs[len(vecs)-1])
	rank := 1
	type scored struct {
		s   float64
		doc string
	}
	var better []scored
	best := scored{s: -2}
	for i, v := range vecs[1 : len(vecs)-1] {
		s := embCos(q, v)
		if s > best.s {
			best = scored{s, docs[i]}
		}
		if s >= ts {
			rank++
			better = append(better, scored{s, docs[i]})
		}
	}
	t.Logf("target rank %d of %d, cosine %.3f; best distractor %.3f %q", rank, len(docs), ts, best.s, best.doc)
	if rank > 3 {
		sort.Slice(better, func(i, j int) bool { return better[i].s > better[j].s })
		for _, b := range better[:min(5, len(better))] {
			t.Logf("  %.3f %s", b.s, b.doc)
		}
		t.Fatalf("paraphrase ranks %d, want top 3", rank)
	}
}

func TestEmbedVectors(t *testing.T) {
	ctx := context.Background()
	var e Embedder
	if e.Dim() != 100 || e.Model() != EmbedderModel {
		t.Fatalf("Dim %d Model %q", e.Dim(), e.Model())
	}
	texts := []string{
		"The cat sat on the mat.",
		"the CAT sat on the mat",
		"",
		"!!! ---",
		"xyzzyfrob quuxblat",
		"xyzzyfrob quuxblat",
		"A kitten was sitting on the rug.",
		"Quarterly revenue figures for the bank.",
	}
	vecs, err := e.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != len(texts) {
		t.Fatalf("got %d vectors", len(vecs))
	}
	for i, v := range vecs {
		n := math.Sqrt(embCos(v, v))
		want := 1.0
		if i == 2 || i == 3 {
			want = 0 // nothing to embed
		}
		if math.Abs(n-want) > 1e-4 {
			t.Fatalf("text %q: norm %.5f, want %v", texts[i], n, want)
		}
	}
	if c := embCos(vecs[0], vecs[1]); c < 0.9999 {
		t.Fatalf("case and punctuation changed the vector: cos %.5f", c)
	}
	if c := embCos(vecs[4], vecs[5]); c < 0.9999 {
		t.Fatalf("unknown words are not deterministic: cos %.5f", c)
	}
	if near, far := embCos(vecs[0], vecs[6]), embCos(vecs[0], vecs[7]); near <= far {
		t.Fatalf("cat/mat vs kitten/rug %.3f ≤ vs bank revenue %.3f", near, far)
	}
	again, _ := e.Embed(ctx, texts[:1])
	if embCos(again[0], vecs[0]) < 0.99999 {
		t.Fatalf("embedding is not deterministic")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := e.Embed(cctx, texts); err == nil {
		t.Fatalf("cancelled context: no error")
	}
}

func BenchmarkEmbed(b *testing.B) {
	var e Embedder
	ctx := context.Background()
	texts := []string{"The automobile would not start in the cold morning, so we called a mechanic who found a flat battery."}
	if _, err := e.Embed(ctx, texts); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		_, _ = e.Embed(ctx, texts)
	}
}

// Every word of the vendored table is found at its own index (the
// vocabulary's open addressing against the table order as oracle).
func TestVendoredVocabulary(t *testing.T) {
	tab, err := wordvec.Decode(embTableData)
	if err != nil {
		t.Fatal(err)
	}
	for i := range tab.Ranks {
		if w := tab.Word(i); tab.Lookup(w) != i {
			t.Fatalf("word %d %q found at %d", i, w, tab.Lookup(w))
		}
	}
}
