package builtin_test

import (
	"context"
	"fmt"

	"github.com/contextd/contextd/model/builtin"
)

func ExampleLexical() {
	passages := []string{
		"the vector index compaction runs nightly",
		"vector data is stored in SQL; the full-text index is separate; compaction is manual",
		"the vector store",
	}
	scores, _ := builtin.Lexical{}.Rerank(context.Background(), "vector index compaction", passages)
	for _, s := range scores {
		fmt.Printf("%.2f\n", s)
	}
	// Output:
	// 0.43
	// 0.18
	// 0.04
}
