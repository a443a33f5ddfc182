package rerank_test

import (
	"context"
	"fmt"

	"github.com/contextd/contextd/rerank"
)

// reranker mirrors the engine's Reranker interface (semantic_config.go).
type reranker interface {
	Rerank(ctx context.Context, query string, passages []string) ([]float64, error)
}

var (
	_ reranker = rerank.Lexical{}
	_ reranker = (*rerank.TEI)(nil)
)

func ExampleFTSPassage() {
	hl := "Backups run nightly. The <mark>vector</mark> <mark>index</mark> is rebuilt from SQL after a crash. Logs rotate weekly."
	fmt.Println(rerank.FTSPassage(hl, 30, 100, 1945))
	// Output: tly. The vector index is rebui
}

func ExampleLexical() {
	passages := []string{
		"the vector index compaction runs nightly",
		"vector data is stored in SQL; the full-text index is separate; compaction is manual",
		"the vector store",
	}
	scores, _ := rerank.Lexical{}.Rerank(context.Background(), "vector index compaction", passages)
	for _, s := range scores {
		fmt.Printf("%.2f\n", s)
	}
	// Output:
	// 0.43
	// 0.18
	// 0.04
}
