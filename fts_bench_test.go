package contextd

import (
	"context"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/contextd/contextd/internal/lab/testcorpus"
	"github.com/contextd/contextd/model/builtin"
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

func goDocParagraphs(max int) ([]string, error) { return testcorpus.Paragraphs(max) }

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
					// The built-in reranker (the server's default) is
					// measured as a third side: the same in-process engine
					// with the reranker switched on for the call.
					reranker := builtin.Lexical{} // the engine gives it the caller's readable-set statistics
					var in, nat, rr []time.Duration
					for i := 0; i < b.N; i++ {
						for _, q := range qs {
							for _, side := range []struct {
								eng    *Engine
								rerank bool
								out    *[]time.Duration
							}{{s.inproc, false, &in}, {s.native, false, &nat}, {s.inproc, true, &rr}} {
								if side.rerank {
									side.eng.cfg.Rerank.Reranker = reranker
								}
								began := time.Now()
								_, err := side.eng.FTSSearch(ctx, FTSSearchRequest{Query: q, Mode: mode, Limit: 10})
								*side.out = append(*side.out, time.Since(began))
								side.eng.cfg.Rerank.Reranker = nil
								if err != nil {
									b.Fatal(err)
								}
							}
						}
					}
					b.ReportMetric(percentile(rr, 0.5), "inproc+rerank-median-ms")
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
