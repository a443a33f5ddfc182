package sqlval

import (
	"sort"

	"github.com/contextd/contextd/persist"
)

// ChunkDist is one chunk of a native vector search with its distance, as
// a KNN statement of either SQL store returns it.
type ChunkDist struct {
	Dist  float64
	Key   int64 // the chunk's key (embedding_chunks.id)
	ID    string
	Chunk int
	Start int
	End   int
	OK    bool // passes access and filter
}

// BestPerEntry keeps the best chunk of each entry among the rows that pass
// (distance, then start, then key) and returns the nearest limit entries,
// distance ASC then id ASC, and how many entries passed: the result shape
// of persist.NativeVectors.VectorSearch on both SQL stores. It sorts rows.
func BestPerEntry(rows []ChunkDist, limit int) ([]persist.VectorHit, int) {
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.Dist != b.Dist {
			return a.Dist < b.Dist
		}
		if a.Start != b.Start {
			return a.Start < b.Start
		}
		return a.Key < b.Key
	})
	seen := map[string]bool{}
	hits := []persist.VectorHit{}
	for _, r := range rows {
		if !r.OK || seen[r.ID] {
			continue
		}
		seen[r.ID] = true
		hits = append(hits, persist.VectorHit{ID: r.ID, Distance: r.Dist, Chunk: r.Chunk, Start: r.Start, End: r.End})
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].Distance != hits[j].Distance {
			return hits[i].Distance < hits[j].Distance
		}
		return hits[i].ID < hits[j].ID
	})
	found := len(hits)
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits, found
}
