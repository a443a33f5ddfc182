package index

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	unitok "github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
)

// benchText is n bytes of agent-note-like text (fixed seed): words, code
// identifiers, paths, URLs and accented words.
func benchText(n int) string {
	words := []string{"the", "deploy", "failed", "because", "fmt.Println", "config.yaml", "https://docs.example.org/guide",
		"résumé", "connection", "refused", "on", "port", "5432", "and", "we", "rolled", "back", "snake_case", "getUserName", "a"}
	rng := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(words[rng.IntN(len(words))])
		if rng.IntN(12) == 0 {
			b.WriteString(".\n")
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()[:n]
}

// BenchmarkAnalyzer compares the english analyzer (FTS5 unicode61 tokens,
// then Porter2) with the one before analyzer version 2 (Bleve's UAX #29
// word tokenizer, lower-casing, stop words, Porter2), over text sizes.
func BenchmarkAnalyzer(b *testing.B) {
	m := bleve.NewIndexMapping()
	if err := addAnalyzer(m, "english"); err != nil {
		b.Fatal(err)
	}
	if err := m.AddCustomAnalyzer("uax29", map[string]any{
		"type": "custom", "tokenizer": unitok.Name,
		"token_filters": []string{en.PossessiveName, lowercase.Name, en.StopName, en.SnowballStemmerName},
	}); err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{256, 16 << 10, 1 << 20} {
		text := []byte(benchText(n))
		for _, name := range []string{analyzerName, "uax29"} {
			a := m.AnalyzerNamed(name)
			b.Run(fmt.Sprintf("%s/bytes=%d", name, n), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(n))
				for b.Loop() {
					a.Analyze(text)
				}
			})
		}
	}
}
