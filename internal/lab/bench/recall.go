package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
)

// The recall row: the in-process backend's semantic_search_context top 10
// against the native backend's, whose sqlite-vec table is scanned exactly
// (float32, every stored chunk). Both databases hold the same entries,
// told apart by metadata.seq; the row appears when both backends ran.

// topHit is one semantic result: the entry's seq and its distance.
type topHit struct {
	Seq      int
	Distance float64
}

// semanticTops asks every natural query of the workload for the top 10
// by semantic_search_context and returns them per query.
func (w *workload) semanticTops(ctx context.Context, h *handle) ([][]topHit, error) {
	out := make([][]topHit, len(w.queries.natural))
	for i, q := range w.queries.natural {
		text, err := h.call(ctx, "semantic_search_context", map[string]any{"query": q, "limit": 10})
		if err != nil {
			return nil, err
		}
		var res struct {
			Results []struct {
				Metadata map[string]any `json:"metadata"`
				Scores   struct {
					SemanticDistance float64 `json:"semantic_distance"`
				} `json:"scores"`
			} `json:"results"`
		}
		if err := json.Unmarshal([]byte(text), &res); err != nil {
			return nil, fmt.Errorf("semantic_search_context: bad response: %w", err)
		}
		for _, r := range res.Results {
			seq, ok := r.Metadata["seq"].(float64)
			if !ok {
				return nil, fmt.Errorf("semantic_search_context: a result without metadata.seq")
			}
			out[i] = append(out[i], topHit{Seq: int(seq), Distance: r.Scores.SemanticDistance})
		}
	}
	return out, nil
}

// recallAt10 is the mean share of got's top 10 that the exact top 10
// holds, where a result at most as far as the exact 10th also counts:
// the Go tree repeats paragraphs (a fifth of the first 100k are copies of
// another), and any copy at the tied distance is a right answer.
func recallAt10(got, exact [][]topHit) float64 {
	found, total := 0, 0
	for i := range exact {
		if len(exact[i]) == 0 {
			continue
		}
		in := map[int]bool{}
		for _, h := range exact[i] {
			in[h.Seq] = true
		}
		bound := exact[i][len(exact[i])-1].Distance
		for _, h := range got[i][:min(len(got[i]), len(exact[i]))] {
			if in[h.Seq] || h.Distance <= bound+1e-6*math.Max(1, math.Abs(bound)) {
				found++
			}
		}
		total += len(exact[i])
	}
	if total == 0 {
		return 1
	}
	return float64(found) / float64(total)
}
