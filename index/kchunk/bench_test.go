package kchunk

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/contextd/contextd/index/extract"
	"github.com/contextd/contextd/model/builtin"
)

// BenchmarkSplit sweeps document sizes for each strategy (fixed seeds;
// Semantic with the hashed-word test embedder, so the figure is the
// chunker's own cost, not a model's).
func BenchmarkSplit(b *testing.B) {
	tk := tok(b)
	for _, paras := range []int{10, 100, 1000} {
		text := prose(42, paras, 6)
		md := markdownDoc(paras)
		for _, tc := range []struct{ name, file, text, strategy string }{
			{"FixedSize", "a.txt", text, FixedSize},
			{"Recursive", "a.txt", text, Recursive},
			{"Semantic", "a.txt", text, Semantic},
			{"Markdown", "a.md", md, ""},
		} {
			b.Run(fmt.Sprintf("%s/%dkB", tc.name, len(tc.text)>>10), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(tc.text)))
				for b.Loop() {
					if _, err := Split(context.Background(), tc.file, tc.text, Options{Strategy: tc.strategy, Embed: topicEmbed, Tokenizer: tk}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkCount is the tokenizer's throughput on English prose.
func BenchmarkCount(b *testing.B) {
	tk := tok(b)
	text := prose(43, 100, 6)
	b.ReportAllocs()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		tk.Count(text)
	}
}

// markdownDoc is a Markdown document with a heading every 3 paragraphs
// and a fenced block every 10.
func markdownDoc(paras int) string {
	var out strings.Builder
	for i := 0; i < paras; i++ {
		if i%3 == 0 {
			fmt.Fprintf(&out, "## Section %d\n\n", i)
		}
		if i%10 == 5 {
			out.WriteString("```go\nfunc main() { println(\"hi\") }\n```\n\n")
		}
		out.WriteString(prose(int64(i), 1, 6))
	}
	return out.String()
}

// BenchmarkSplitFiftyPagePDF chunks the text of the 50-page LibreOffice
// PDF of index/extract with the defaults (Semantic, 512 tokens) and the
// built-in embedder for the sentence windows, the work ingestion does
// per document between extraction and indexing.
func BenchmarkSplitFiftyPagePDF(b *testing.B) {
	ctx := context.Background()
	doc, err := extract.File(ctx, "../extract/testdata/libreoffice/fifty-pages.pdf", extract.Options{})
	if err != nil {
		b.Fatal(err)
	}
	var emb builtin.Embedder
	tk := tok(b)
	for _, s := range []string{Semantic, Recursive, FixedSize} {
		b.Run(s, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(doc.Text)))
			var n int
			for b.Loop() {
				cs, err := Split(ctx, "fifty-pages.pdf", doc.Text, Options{Strategy: s, Embed: emb.Embed, Tokenizer: tk})
				if err != nil {
					b.Fatal(err)
				}
				n = len(cs)
			}
			b.ReportMetric(float64(n), "chunks")
		})
	}
}
