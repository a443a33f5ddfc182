package kchunk

import (
	"context"
	"fmt"
	"testing"
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
	out := ""
	for i := 0; i < paras; i++ {
		if i%3 == 0 {
			out += fmt.Sprintf("## Section %d\n\n", i)
		}
		if i%10 == 5 {
			out += "```go\nfunc main() { println(\"hi\") }\n```\n\n"
		}
		out += prose(int64(i), 1, 6)
	}
	return out
}
