package rank_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/contextd/contextd/internal/rank"
)

// byLength prefers short passages.
type byLength struct{}

func (byLength) Rerank(_ context.Context, _ string, passages []string) ([]float64, error) {
	out := make([]float64, len(passages))
	for i, p := range passages {
		out[i] = 1 / float64(len(p))
	}
	return out, nil
}

func Example() {
	ctx := context.Background()
	hc := rank.Hybrid{}.WithDefaults()
	q, mode, _ := rank.AdaptiveQuery("wing flutter", hc.ORThreshold)
	fmt.Println(q, mode, hc.LegDepth())

	// The legs' hits, best first.
	text := []rank.TextHit{{ID: "a", Score: 2.5}, {ID: "b", Score: 1.5}}
	vec := []rank.VectorHit{{ID: "b", Distance: 0.2, End: 5}, {ID: "c", Distance: 0.4, End: 5}}
	cands, fs := rank.Fuse(hc.RRFK, text, vec)
	fmt.Printf("%s %+v\n", strings.Join(rank.IDs(cands), " "), fs)

	texts := func(_ context.Context, ids []string) (map[string]string, error) {
		return map[string]string{"a": "a long text about wing flutter", "b": "flutter", "c": "wings"}, nil
	}
	rr := rank.Reranking{Reranker: byLength{}}
	cands, reranked, err := rr.Rerank(ctx, "wing flutter", cands, texts)
	if err != nil {
		panic(err)
	}
	// b's passage is its full text ("flutter"), c's its chunk ("wings").
	page := rank.Cut(cands, rank.Window{Offset: 0, Limit: 2})
	fmt.Println(strings.Join(rank.IDs(page), " "), reranked)
	// Output:
	// wing flutter match 200
	// b a c {RRFK:60 TotalUniqueDocuments:3 DocumentsInBoth:1 DocumentsFTSOnly:1 DocumentsSemanticOnly:1}
	// c b true
}
