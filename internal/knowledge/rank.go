package knowledge

import (
	"container/heap"
	"context"
	"math"

	"github.com/contextd/contextd/index/bm25"
	"github.com/contextd/contextd/internal/rank"
)

// scored is candidate i of a search with its score. Legs and fusion work
// on indexes into the candidate slice and dense arrays rather than maps
// and strings: at 100,000 chunks the map-and-sort version took 1.3 s per
// Keyword query (median, 2-core EPYC), most of it sorting and hashing.
type scored struct {
	i     int32
	score float64
}

// better is the result order: score, then path, then chunk index, a
// total order so the same query gives the same list every time
// (requirements I.6).
func better(cands []candidate, a, b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	ca, cb := &cands[a.i], &cands[b.i]
	if ca.path != cb.path {
		return ca.path < cb.path
	}
	return ca.index < cb.index
}

// worstFirst is a heap whose root is the worst of the kept hits.
type worstFirst struct {
	cands []candidate
	h     []scored
}

func (w *worstFirst) Len() int           { return len(w.h) }
func (w *worstFirst) Less(i, j int) bool { return better(w.cands, w.h[j], w.h[i]) }
func (w *worstFirst) Swap(i, j int)      { w.h[i], w.h[j] = w.h[j], w.h[i] }
func (w *worstFirst) Push(x any)         { w.h = append(w.h, x.(scored)) }
func (w *worstFirst) Pop() any {
	x := w.h[len(w.h)-1]
	w.h = w.h[:len(w.h)-1]
	return x
}

// top returns the k best of hits in result order, in O(n log k).
func top(cands []candidate, hits []scored, k int) []scored {
	w := &worstFirst{cands: cands, h: make([]scored, 0, k+1)}
	for _, h := range hits {
		if len(w.h) < k {
			heap.Push(w, h)
		} else if better(cands, h, w.h[0]) {
			w.h[0] = h
			heap.Fix(w, 0)
		}
	}
	out := make([]scored, len(w.h))
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = heap.Pop(w).(scored)
	}
	return out
}

// semanticLeg is the topK chunks by cosine similarity (raw, in [-1, 1],
// as upstream's 1 - cosine distance), of the query with the chunks'
// int16 codes (veccode.go).
func semanticLeg(cands []candidate, qv []float32, topK int) []scored {
	qn := norm(qv)
	if qn == 0 {
		return nil
	}
	out := make([]scored, 0, len(cands))
	for i := range cands {
		if s, ok := cosineCode(qv, qn, cands[i].c.vec); ok {
			out = append(out, scored{i: int32(i), score: s})
		}
	}
	return top(cands, out, topK)
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

// stemWeight is the English stream's weight against the exact stream's
// 1: upstream's setweight B (0.4) against A (1.0).
const stemWeight = 0.4

// keywordLeg scores every chunk that matches q (keyword.go) by BM25 over
// the candidate chunks (so document frequencies count only what the
// caller may read and nothing unreadable shifts a score): the exact
// stream's positive terms at weight 1 plus the English stream's at 0.4,
// so an exact hit outranks a stemmed one as in upstream's ts_rank_cd,
// mapped r/(r+1) into [0, 1) as upstream maps it. A chunk that matches
// only through negations (a query of -word alone) scores 0. When the
// query matches no chunk, its relaxed form runs (keyword.go). Each stream
// searches at most limit distinct terms (keyword_limit.go). texts
// gives a phrase the text of a span chunk (nil: only kept texts; a text
// it lacks is recorded in texts.missing and matches no phrase).
func keywordLeg(ctx context.Context, cands []candidate, q keywordQuery, totalLen int, v *vocab, limit int, texts *chunkTexts) ([]scored, error) {
	if len(cands) == 0 || len(q.exact) == 0 && len(q.stemmed) == 0 {
		return nil, nil
	}
	n := float64(len(cands))
	avg := float64(totalLen) / n
	if avg == 0 {
		avg = 1
	}
	// No table of counts per chunk and term: a 10,000-character query
	// has thousands of terms, and a table of them for every chunk of a
	// large container took gigabytes. Counts are read twice instead:
	// once for the document frequencies, once to score the matches.
	type stream struct {
		ids []uint32
		w   float64
		idf []float64
		kw  *kwStream
	}
	var streams [2]stream
	for k, qq := range []*kwQuery{&q.exact, &q.stemmed} {
		st := &streams[k]
		qq.resolve(v)
		st.w, st.kw = 1, exactStream
		if k == 1 {
			st.w, st.kw = stemWeight, v.stemStream(qq.ids())
		}
		bounded, keep, err := qq.bound(ctx, cands, st.kw, limit)
		if err != nil {
			return nil, err
		}
		*qq = bounded
		for _, t := range qq.positives() {
			if id := v.lookup(t); keep == nil || keep[id] {
				st.ids = append(st.ids, id)
			}
		}
		df := make([]int, len(st.ids))
		for i := range cands {
			if i%checkEvery == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			for j, id := range st.ids {
				if st.kw.count(cands[i].c, id) > 0 {
					df[j]++
				}
			}
		}
		st.idf = make([]float64, len(st.ids))
		for j := range st.ids {
			st.idf[j] = bm25.IDF(float64(df[j]), n)
		}
	}
	match := make([]bool, len(cands))
	found := false
	for _, relaxed := range []bool{false, true} {
		for i := range cands {
			if i%checkEvery == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			c := cands[i].c
			seq := chunkSeq{cand: &cands[i], i: int32(i), texts: texts}
			match[i] = q.exact.matches(c, streams[0].kw, relaxed, &seq) || q.stemmed.matches(c, streams[1].kw, relaxed, &seq)
			found = found || match[i]
		}
		if found {
			break
		}
	}
	var out []scored
	for i := range cands {
		if !match[i] {
			continue
		}
		c := cands[i].c
		var r float64
		for _, st := range streams {
			for j, id := range st.ids {
				if f := float64(st.kw.count(c, id)); f > 0 {
					r += st.w * st.idf[j] * bm25.TF(f, float64(c.n), avg)
				}
			}
		}
		out = append(out, scored{i: int32(i), score: r / (r + 1)})
	}
	return out, nil
}

// fuse is the convex combination of requirements C2 (rank.Convex): each
// list min-max normalised (a list whose scores are all equal, a single
// hit included, normalises to 1), then alpha*semantic + (1-alpha)*keyword,
// a side missing a chunk adding 0.
func fuse(sem, kw []scored, alpha float64) []scored {
	f := rank.Convex(alpha, toRank(sem), toRank(kw))
	out := make([]scored, len(f))
	for k, h := range f {
		out[k] = scored{i: h.I, score: h.Score}
	}
	return out
}

func toRank(l []scored) []rank.Scored {
	out := make([]rank.Scored, len(l))
	for k, h := range l {
		out[k] = rank.Scored{I: h.i, Score: h.score}
	}
	return out
}
