package contextd

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/sqlite"
)

// Full-text benchmarks on a real corpus: the paragraphs of the doc
// comments of the Go source tree ($GOROOT/src, present wherever Go is),
// extracted deterministically (files in lexical order, paragraphs of at
// least six words). Each run loads N entries, measures the in-process
// index's rebuild throughput, and runs the same queries per mode on both
// backends, reporting median and p99 latency and their ratio.
//
//	go test -run '^$' -bench BenchmarkFTS -benchtime 1x .

var (
	corpusOnce sync.Once
	corpus     []string
	corpusErr  error
)

func goDocParagraphs(max int) ([]string, error) {
	corpusOnce.Do(func() {
		root := filepath.Join(runtime.GOROOT(), "src")
		corpusErr = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || len(corpus) >= 100_000 {
				return err
			}
			if !d.Type().IsRegular() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") || strings.Contains(p, "testdata") {
				return nil
			}
			f, err := os.Open(p)
			if err != nil {
				return nil
			}
			defer f.Close()
			var cur []string
			flush := func() {
				if len(strings.Fields(strings.Join(cur, " "))) >= 6 && len(corpus) < 100_000 {
					corpus = append(corpus, strings.Join(cur, " "))
				}
				cur = cur[:0]
			}
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				s := strings.TrimSpace(sc.Text())
				if t, ok := strings.CutPrefix(s, "//"); ok && !strings.HasPrefix(t, "go:") {
					if t = strings.TrimSpace(t); t != "" {
						cur = append(cur, t)
						continue
					}
				}
				flush()
			}
			flush()
			return nil
		})
	})
	if corpusErr != nil {
		return nil, corpusErr
	}
	if len(corpus) < max {
		return nil, fmt.Errorf("the Go source tree holds %d doc paragraphs, fewer than %d", len(corpus), max)
	}
	return corpus[:max], nil
}

// benchSet is a loaded database with one engine per backend.
type benchSet struct {
	dir            string
	inproc, native *Engine
	rebuild        time.Duration
	n              int
}

var benchSets = map[int]*benchSet{}

func loadBench(b *testing.B, n int) *benchSet {
	if s, ok := benchSets[n]; ok {
		return s
	}
	docs, err := goDocParagraphs(n)
	if err != nil {
		b.Skip(err)
	}
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "contextd-ftsbench-")
	if err != nil {
		b.Fatal(err)
	}
	st, err := sqlite.Open(ctx, sqlite.Options{Path: filepath.Join(dir, "bench.db")})
	if err != nil {
		b.Fatal(err)
	}
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < n; i += 1000 {
		err := st.Write(ctx, func(tx persist.Tx) error {
			for j := i; j < min(i+1000, n); j++ {
				vis := VisibilityPrivate
				if j%3 == 0 {
					vis = VisibilityPublic
				}
				e := &persist.Entry{ID: fmt.Sprintf("%032x", j+1), ThreadID: fmt.Sprintf("t%d", j%50), Source: "agent",
					ContentType: "text", Text: docs[j], Owner: fmt.Sprintf("p%d", j%4), Visibility: vis,
					CreatedAt: t0.Add(time.Duration(j) * time.Second), UpdatedAt: t0.Add(time.Duration(j) * time.Second)}
				if err := tx.Insert(ctx, e, nil); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	s := &benchSet{dir: dir, n: n}
	began := time.Now()
	if s.inproc, err = Open(ctx, Config{Store: st, FTS: FTSConfig{IndexDir: filepath.Join(dir, "bench.db.index"), Progress: io.Discard}}); err != nil {
		b.Fatal(err)
	}
	s.rebuild = time.Since(began)
	if s.native, err = Open(ctx, Config{Store: st, FTS: FTSConfig{Backend: BackendNative}}); err != nil {
		b.Fatal(err)
	}
	benchSets[n] = s
	return s
}

// benchQueries derives queries of each mode from the corpus with a fixed
// seed: words of five or more letters, pairs of adjacent words.
func benchQueries(docs []string, mode string) []string {
	rng := rand.New(rand.NewSource(7))
	var out []string
	for len(out) < 40 {
		words := strings.FieldsFunc(docs[rng.Intn(len(docs))], func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
		})
		var long []string
		for _, w := range words {
			if len(w) >= 5 {
				long = append(long, strings.ToLower(w))
			}
		}
		if len(long) < 3 {
			continue
		}
		switch mode {
		case "match":
			out = append(out, long[0]+" "+long[1])
		case "prefix":
			out = append(out, long[0][:4])
		case "phrase":
			i := rng.Intn(len(words) - 1)
			out = append(out, words[i]+" "+words[i+1])
		case "boolean":
			out = append(out, long[0]+" OR "+long[1]+" NOT "+long[2])
		}
	}
	return out
}

func percentile(ds []time.Duration, p float64) float64 {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return float64(s[min(len(s)-1, int(p*float64(len(s))))].Microseconds()) / 1000
}

func BenchmarkFTS(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			s := loadBench(b, n)
			docs, _ := goDocParagraphs(n)
			b.Run("index", func(b *testing.B) {
				b.ReportMetric(float64(s.n)/s.rebuild.Seconds(), "entries/s")
				b.ReportMetric(0, "ns/op")
			})
			ctx := WithPrincipal(context.Background(), Principal{ID: "p1"})
			for _, mode := range []string{"match", "prefix", "phrase", "boolean"} {
				qs := benchQueries(docs, mode)
				b.Run("mode="+mode, func(b *testing.B) {
					b.ReportAllocs()
					var in, nat []time.Duration
					for i := 0; i < b.N; i++ {
						for _, q := range qs {
							for _, side := range []struct {
								eng *Engine
								out *[]time.Duration
							}{{s.inproc, &in}, {s.native, &nat}} {
								began := time.Now()
								if _, err := side.eng.FTSSearch(ctx, FTSSearchRequest{Query: q, Mode: mode, Limit: 10}); err != nil {
									b.Fatal(err)
								}
								*side.out = append(*side.out, time.Since(began))
							}
						}
					}
					b.ReportMetric(percentile(in, 0.5), "inproc-median-ms")
					b.ReportMetric(percentile(in, 0.99), "inproc-p99-ms")
					b.ReportMetric(percentile(nat, 0.5), "native-median-ms")
					b.ReportMetric(percentile(nat, 0.99), "native-p99-ms")
					b.ReportMetric(percentile(nat, 0.5)/percentile(in, 0.5), "native/inproc")
				})
			}
		})
	}
}
