package retrieve

import (
	"context"
	"time"

	"github.com/contextd/contextd/api"
	"github.com/contextd/contextd/internal/rank"
	"github.com/contextd/contextd/internal/request"
	"github.com/contextd/contextd/internal/search"
	"github.com/contextd/contextd/model"
	"github.com/contextd/contextd/model/builtin"
	"github.com/contextd/contextd/persist"
)

// Searcher runs the ranked searches over one store and its legs. It is a
// plain value: the facade builds one per call from its open state, so a
// change of its configuration (as tests make) applies to the next search.
type Searcher struct {
	Store persist.Store
	FTS   *search.FullText
	// Vectors is the vector leg; nil when semantic search cannot run.
	Vectors *search.Vectors
	// VectorBackend is semantic search's SEARCH_BACKEND, "" without an
	// embedder.
	VectorBackend string
	// Embed embeds a query for the vector leg.
	Embed func(ctx context.Context, query string) ([]float32, error)
	// Rerank configures reranking; a nil Reranker reranks nothing.
	Rerank Rerank
	// PassageChars caps the passage of each result, in code points
	// (SEARCH_TRUNCATION_LENGTH, as text_content).
	PassageChars int
}

// Rerank configures the reranking of the ranked searches: the reranker
// and the passages it reads (rank.Passages).
type Rerank struct {
	Reranker                                model.Reranker
	MaxPassageChars, FTSWindow, FTSGapMerge int
}

// reranking is the configured reranking of acc's ranked searches; the
// in-process index places the passages of hits that came without
// highlight. The built-in lexical reranker weighs query terms by the
// full-text backend's collection statistics, those of acc's readable set
// in-process (not of entries acc cannot read).
func (s *Searcher) reranking(acc persist.Access) rank.Reranking {
	rc := s.Rerank
	r := rank.Reranking{Reranker: rc.Reranker, Passages: rank.Passages{MaxChars: rc.MaxPassageChars, Window: rc.FTSWindow, GapMerge: rc.FTSGapMerge}}
	if l, ok := rc.Reranker.(builtin.StatsReranker); ok && s.FTS != nil {
		if st := s.FTS.CollectionStats(acc); st != nil {
			r.Reranker = l.WithStats(st)
		}
	}
	r.Passages.Matcher = s.passages().Matcher
	return r
}

// passages place the matches of the ranked entries: the in-process
// index finds a hit's matches from its text and terms; a native backend
// has no matcher (its passages come from its highlight, or are the best
// chunk or the start of the text).
func (s *Searcher) passages() rank.Passages {
	if s.FTS != nil && s.FTS.Index() != nil {
		return rank.Passages{Matcher: s.FTS.Index()}
	}
	return rank.Passages{}
}

// texts reads the texts of the entries acc may read.
func (s *Searcher) texts(acc persist.Access) rank.Texts {
	return func(ctx context.Context, ids []string) (map[string]string, error) {
		return s.Store.Texts(ctx, acc, ids)
	}
}

// load reads the readable entries among ids.
func (s *Searcher) load(ctx context.Context, acc persist.Access, ids []string, images bool) (map[string]*persist.Entry, error) {
	ents, err := s.Store.Get(ctx, acc, ids, persist.GetOptions{Images: images})
	if err != nil {
		return nil, err
	}
	out := make(map[string]*persist.Entry, len(ents))
	for i := range ents {
		out[ents[i].ID] = &ents[i]
	}
	return out, nil
}

// hydrate reads the page's entries and pairs each with its candidate and
// its passage (rank.Passages.Locate; terms are the query's index terms
// for candidates the full-text leg did not find, nil when unknown); an
// entry deleted since the ranking is not a result.
func hydrate[S any](ctx context.Context, s *Searcher, acc persist.Access, page []rank.Candidate, images bool, terms []string, scores func(*persist.Entry, rank.Candidate) S) ([]Hit[S], error) {
	ents, err := s.load(ctx, acc, rank.IDs(page), images)
	if err != nil {
		return nil, err
	}
	ps, limit := s.passages(), s.passageChars()
	out := make([]Hit[S], 0, len(page))
	for _, c := range page {
		ent, ok := ents[c.ID]
		if !ok {
			continue
		}
		h := Hit[S]{Entry: ent, Scores: scores(ent, c)}
		if request.Truncated(ent.Text, limit) {
			l := ps.Locate(&c, ent.Text, terms, limit)
			h.Passage = &api.Passage{Text: l.Text, Start: l.Start, End: l.End, StartLine: l.StartLine, EndLine: l.EndLine}
		}
		out = append(out, h)
	}
	return out, nil
}

// passageChars is PassageChars, 300 (SEARCH_TRUNCATION_LENGTH's default)
// when unset.
func (s *Searcher) passageChars() int {
	if s.PassageChars > 0 {
		return s.PassageChars
	}
	return 300
}

// Hit is one result of a page: the stored entry, its scores and the
// passage of its text that matched. Passage is nil when the text is no
// longer than the passage cap: text_content then holds it whole (both
// are SEARCH_TRUNCATION_LENGTH code points), and the passage would only
// repeat it.
type Hit[S any] struct {
	Entry   *persist.Entry
	Scores  S
	Passage *api.Passage
}

// MS is a duration in milliseconds with two decimals, as the statistics
// report times.
func MS(d time.Duration) float64 {
	return float64(d.Microseconds()/10) / 100
}

// textHits and vectorHits hand the legs' hits to package rank.
func textHits(hits []search.FullTextHit) []rank.TextHit {
	out := make([]rank.TextHit, len(hits))
	for i, h := range hits {
		out[i] = rank.TextHit(h)
	}
	return out
}

func vectorHits(hits []search.VectorHit) []rank.VectorHit {
	out := make([]rank.VectorHit, len(hits))
	for i, h := range hits {
		out[i] = rank.VectorHit(h)
	}
	return out
}
