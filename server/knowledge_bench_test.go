package server_test

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/contextd/contextd/model/builtin"
)

// kBenchWords is the vocabulary of generated documents.
var kBenchWords = strings.Fields(`river mill farmer wheat barley autumn harvest storage grain market price
	weather rain drought irrigation canal soil nitrogen rotation tractor plough seed yield cooperative ledger
	contract transport barge railway warehouse silo moisture pest fungus spray inspection quality grade export
	import tariff subsidy winter frost spring planting summer heat orchard cider press vineyard cellar barrel`)

func kSentence(r *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = kBenchWords[r.IntN(len(kBenchWords))]
	}
	return strings.ToUpper(w[0][:1]) + strings.Join(w, " ")[1:] + "."
}

// kMarkdownDoc is a generated Markdown file of sections headed "##", each
// one chunk under heading-aware chunking.
func kMarkdownDoc(r *rand.Rand, i, sections int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Report %d\n\n", i)
	for s := range sections {
		fmt.Fprintf(&b, "## Section %d.%d\n\n%s %s %s\n\n", i, s, kSentence(r, 12), kSentence(r, 10), kSentence(r, 14))
	}
	return b.String()
}

// BenchmarkUploadToSearchable measures from the first upload call to the
// moment every document is Ready (searchable), through MCP, with the
// built-in embedder: one 50-page PDF (bench50.pdf, made by LibreOffice)
// and 1,000 Markdown files in ten bulk_upload calls.
func BenchmarkUploadToSearchable(b *testing.B) {
	pdf, err := os.ReadFile("testdata/knowledge/bench50.pdf")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("pdf50pages", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			b.StopTimer()
			e := newKEnv(b, &builtin.Embedder{})
			e.call("local", "container_create", map[string]any{"name": "bench"})
			content := base64.StdEncoding.EncodeToString(pdf)
			b.StartTimer()
			e.call("local", "upload_file", map[string]any{"containerId": "bench", "fileName": "handbook.pdf", "content": content})
			e.wait()
			b.StopTimer()
			if out := e.call("local", "search_knowledge", map[string]any{"containerId": "bench", "query": "harvest", "mode": "Keyword"}); !strings.Contains(out, "handbook.pdf") {
				b.Fatalf("not searchable: %.300s", out)
			}
			e.close()
		}
	})
	b.Run("markdown1000", func(b *testing.B) {
		b.ReportAllocs()
		r := rand.New(rand.NewPCG(1000, 1))
		var batches []string
		for k := range 10 {
			var files []map[string]any
			for i := range 100 {
				n := k*100 + i
				files = append(files, map[string]any{"filename": fmt.Sprintf("r%04d.md", n), "folderPath": fmt.Sprintf("/y%d/", n%10), "content": kMarkdownDoc(r, n, 4)})
			}
			batches = append(batches, kJSON(b, files))
		}
		for range b.N {
			b.StopTimer()
			e := newKEnv(b, &builtin.Embedder{})
			e.call("local", "container_create", map[string]any{"name": "bench"})
			b.StartTimer()
			for _, files := range batches {
				if out := e.call("local", "bulk_upload", map[string]any{"containerId": "bench", "files": files}); !strings.HasPrefix(out, "Uploaded 100 of 100") {
					b.Fatal(out)
				}
			}
			e.wait()
			b.StopTimer()
			e.close()
		}
	})
}

// BenchmarkSearchKnowledge measures search_knowledge through MCP per
// mode over one container of 100,000 chunks (1,000 Markdown files of 100
// sections, built-in embedder), reporting the median of the calls as
// median-ms. Building the container takes minutes: run it with
// -benchtime=20x.
func BenchmarkSearchKnowledge(b *testing.B) {
	for _, chunks := range []int{10_000, 100_000} {
		docs := chunks / 100
		e := newKEnv(b, &builtin.Embedder{})
		e.call("local", "container_create", map[string]any{"name": "bench"})
		r := rand.New(rand.NewPCG(uint64(chunks), 2))
		start := time.Now()
		for k := 0; k < docs; k += 100 {
			var files []map[string]any
			for i := k; i < min(k+100, docs); i++ {
				files = append(files, map[string]any{"filename": fmt.Sprintf("r%05d.md", i), "content": kMarkdownDoc(r, i, 100)})
			}
			if out := e.call("local", "bulk_upload", map[string]any{"containerId": "bench", "files": kJSON(b, files)}); !strings.HasPrefix(out, "Uploaded") {
				b.Fatal(out)
			}
		}
		e.waitFor(30 * time.Minute)
		stats := e.call("local", "container_stats", map[string]any{"containerId": "bench"})
		b.Logf("%d chunks built in %v:\n%s", chunks, time.Since(start), stats)
		queries := []string{"winter frost damaged the orchard", "barge transport of grain to market", "cellar barrel cider press", "tariff subsidy export"}
		for _, mode := range []string{"Semantic", "Keyword", "Hybrid"} {
			b.Run(fmt.Sprintf("chunks=%d/%s", chunks, mode), func(b *testing.B) {
				b.ReportAllocs()
				var lat []time.Duration
				for i := 0; b.Loop(); i++ {
					t0 := time.Now()
					out := e.call("local", "search_knowledge", map[string]any{"containerId": "bench", "query": queries[i%len(queries)], "mode": mode})
					lat = append(lat, time.Since(t0))
					if !strings.Contains(out, "--- Result 1 ---") {
						b.Fatalf("no results: %.200s", out)
					}
				}
				sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "median-ms")
			})
		}
		e.close()
	}
}

// BenchmarkRestartRebuild measures a restart over a container of 10,000
// chunks (100 Markdown files of 100 sections, built-in embedder): from
// reopening the engine and the service to the first search_knowledge
// answer, which waits for the chunk index rebuilt in the background.
func BenchmarkRestartRebuild(b *testing.B) {
	e := newKEnv(b, &builtin.Embedder{})
	e.call("local", "container_create", map[string]any{"name": "bench"})
	r := rand.New(rand.NewPCG(10_000, 3))
	var files []map[string]any
	for i := range 100 {
		files = append(files, map[string]any{"filename": fmt.Sprintf("r%03d.md", i), "content": kMarkdownDoc(r, i, 100)})
	}
	if out := e.call("local", "bulk_upload", map[string]any{"containerId": "bench", "files": kJSON(b, files)}); !strings.HasPrefix(out, "Uploaded 100 of 100") {
		b.Fatal(out)
	}
	e.waitFor(30 * time.Minute)
	b.ReportAllocs()
	for b.Loop() {
		e.close()
		e.open()
		if out := e.call("local", "search_knowledge", map[string]any{"containerId": "bench", "query": "harvest", "mode": "Keyword", "topK": 1}); !strings.Contains(out, "--- Result 1 ---") {
			b.Fatalf("no results: %.200s", out)
		}
	}
}
