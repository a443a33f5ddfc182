package model_test

import (
	"context"
	"fmt"

	"github.com/contextd/contextd/model"
	"github.com/contextd/contextd/model/builtin"
	"github.com/contextd/contextd/model/hashembed"
	"github.com/contextd/contextd/model/tei"
)

// The engine holds its models as these interfaces; any provider fits.
func Example() {
	ctx := context.Background()
	var e model.Embedder = hashembed.New(8)
	vecs, _ := e.Embed(ctx, []string{"vector index", "garden"})
	fmt.Println(len(vecs), e.Dim())

	rerankers := []model.Reranker{builtin.Lexical{}, &tei.Reranker{URL: "http://localhost:8080"}}
	scores, _ := rerankers[0].Rerank(ctx, "vector index", []string{"the vector index", "a garden"})
	fmt.Println(scores[0] > scores[1], scores[1])

	var s model.Summarizer = builtin.Summarizer{}
	summary, _ := s.Summarize(ctx, "", "")
	fmt.Printf("%q\n", summary)
	// Output:
	// 2 8
	// true 0
	// ""
}

func ExampleClampScore() {
	fmt.Println(model.ClampScore(1.5), model.ClampScore(-0.2), model.ClampScore(0.4))
	// Output: 1 0 0.4
}
