package knowledge

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/contextd/contextd/index/token"
	"github.com/contextd/contextd/persist"
)

// Search modes.
const (
	Semantic = "Semantic"
	Keyword  = "Keyword"
	Hybrid   = "Hybrid"
)

// Limits of search_knowledge (requirements C3).
const (
	MaxQueryLength = 10000
	MinTopK        = 1
	MaxTopK        = 100
	DefaultTopK    = 10
)

// ParseMode reads a mode case-insensitively ("0", "1", "2" too); anything
// else is Hybrid.
func ParseMode(m string) string {
	switch strings.ToLower(strings.TrimSpace(m)) {
	case "semantic", "0":
		return Semantic
	case "keyword", "1":
		return Keyword
	}
	return Hybrid
}

// Query is one search_knowledge call.
type Query struct {
	Text     string
	Mode     string // Semantic, Keyword or Hybrid
	TopK     int
	Path     string   // folder subtree; "" for all
	MinScore *float64 // nil: the server's setting
}

// Hit is one result.
type Hit struct {
	Score      float64
	DocumentID string
	Name       string
	Path       string
	Chunk      int
	Text       string
}

// Result is a search's hits, best first, with the number of matching
// chunks before the topK cut.
type Result struct {
	Hits    []Hit
	Total   int
	Elapsed time.Duration
}

// ValidateQuery checks the limits of requirements C3, in their order;
// each failure is an ErrInvalid whose message is the exact text.
func (s *Service) ValidateQuery(q Query) error {
	switch {
	case len(utf16.Encode([]rune(q.Text))) > MaxQueryLength:
		return invalid("Query must not exceed %d characters.", MaxQueryLength)
	case q.TopK < MinTopK || q.TopK > MaxTopK:
		return invalid("topK must be between %d and %d.", MinTopK, MaxTopK)
	case q.MinScore != nil && !(*q.MinScore >= 0 && *q.MinScore <= 1):
		return invalid("minScore must be between 0.0 and 1.0.")
	}
	return nil
}

// candidate is one chunk a search may return.
type candidate struct {
	doc   string
	path  string
	index int
	c     *indexedChunk
}

// Search runs q over the Ready chunks of c that acc may read.
func (s *Service) Search(ctx context.Context, acc persist.Access, c *Container, q Query) (*Result, error) {
	start := time.Now()
	if err := s.ValidateQuery(q); err != nil {
		return nil, err
	}
	q.Mode = ParseMode(q.Mode)
	minScore := s.opt.MinScore
	if q.MinScore != nil {
		minScore = *q.MinScore
	}
	if strings.TrimSpace(q.Text) == "" {
		return &Result{Elapsed: time.Since(start)}, nil
	}
	readable, err := s.st.FilterIDs(ctx, acc, persist.Filter{ThreadID: docThreadPrefix + c.ID})
	if err != nil {
		return nil, fmt.Errorf("readable documents: %w", err)
	}
	prefix := ""
	if strings.TrimSpace(q.Path) != "" {
		prefix = NormalizeFolderPath(q.Path)
	}
	var qv []float32
	if q.Mode != Keyword && s.emb != nil {
		v, err := s.emb.Embed(ctx, []string{q.Text})
		if err != nil {
			return nil, fmt.Errorf("embed query: %w", err)
		}
		if len(v) == 1 {
			qv = v[0]
		}
	}
	s.idx.mu.RLock()
	var cands []candidate
	totalLen := 0
	for _, id := range readable {
		d := s.idx.docs[id]
		if d == nil || d.status != Ready || d.container != c.ID || !strings.HasPrefix(d.path, prefix) {
			continue
		}
		totalLen += d.totalLen
		for i := range d.chunks {
			cands = append(cands, candidate{doc: id, path: d.path, index: i, c: &d.chunks[i]})
		}
	}
	var sem, kw []scored
	if q.Mode != Keyword && qv != nil {
		sem = semanticLeg(cands, qv, q.TopK)
	}
	if q.Mode != Semantic {
		kw = keywordLeg(cands, queryTerms(q.Text), totalLen)
	}
	s.idx.mu.RUnlock()
	var fused []scored
	switch q.Mode {
	case Semantic:
		fused = sem
	case Keyword:
		fused = kw
	default:
		fused = fuse(sem, kw, s.alpha)
	}
	kept := fused[:0]
	for _, h := range fused {
		if h.score >= minScore {
			kept = append(kept, h)
		}
	}
	sortScored(kept)
	res := &Result{Total: len(kept)}
	if len(kept) > q.TopK {
		kept = kept[:q.TopK]
	}
	names, err := s.names(ctx, acc, kept)
	if err != nil {
		return nil, err
	}
	for _, h := range kept {
		res.Hits = append(res.Hits, Hit{Score: h.score, DocumentID: h.doc, Name: names[h.doc], Path: h.path,
			Chunk: h.index, Text: h.c.Text})
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// names reads the file names of the hits' documents.
func (s *Service) names(ctx context.Context, acc persist.Access, hits []scored) (map[string]string, error) {
	out := map[string]string{}
	var ids []string
	for _, h := range hits {
		if _, ok := out[h.doc]; !ok {
			out[h.doc] = ""
			ids = append(ids, h.doc)
		}
	}
	if len(ids) == 0 {
		return out, nil
	}
	res, err := s.st.Search(ctx, acc, persist.SearchQuery{Filter: persist.Filter{IDs: ids}, Limit: len(ids)})
	if err != nil {
		return nil, fmt.Errorf("document names: %w", err)
	}
	for i := range res.Entries {
		if r, ok := decodeRecord(res.Entries[i].Metadata); ok {
			out[res.Entries[i].ID] = r.Name
		}
	}
	return out, nil
}

// scored is a candidate with its score.
type scored struct {
	candidate
	score float64
}

// sortScored orders by score, then path, then chunk index: a total order,
// so the same query gives the same list every time (requirements I.6).
func sortScored(h []scored) {
	sort.Slice(h, func(i, j int) bool {
		if h[i].score != h[j].score {
			return h[i].score > h[j].score
		}
		if h[i].path != h[j].path {
			return h[i].path < h[j].path
		}
		return h[i].index < h[j].index
	})
}

// semanticLeg is the topK chunks by cosine similarity (raw, in [-1, 1],
// as upstream's 1 - cosine distance).
func semanticLeg(cands []candidate, qv []float32, topK int) []scored {
	qn := norm(qv)
	out := make([]scored, 0, len(cands))
	for _, c := range cands {
		if len(c.c.vec) != len(qv) || qn == 0 {
			continue
		}
		var dot float64
		for i, x := range c.c.vec {
			dot += float64(x) * float64(qv[i])
		}
		n := norm(c.c.vec)
		if n == 0 {
			continue
		}
		out = append(out, scored{candidate: c, score: dot / (qn * n)})
	}
	sortScored(out)
	if len(out) > topK {
		out = out[:topK]
	}
	return out
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

// stopwords are dropped from keyword queries, as PostgreSQL's english
// configuration drops them: a query's "the" or "how" matches everything
// and ranks nothing.
var stopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an and are as at be but by for from has have how i if in into is it its
		of on or our so such that the their then there these they this to was we were what when where which
		who why will with you your do does did can`) {
		stopwords[w] = true
	}
}

// queryTerms are the distinct folded tokens of q without stopwords.
func queryTerms(q string) []string {
	seen := map[string]bool{}
	var out []string
	token.Scan(q, nil, func(_, _ int, term []byte) {
		t := string(term)
		if !stopwords[t] && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	})
	return out
}

// BM25 parameters: the usual k1 and b.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// keywordLeg scores every chunk holding a query term by BM25 over the
// candidate chunks (so document frequencies count only what the caller
// may read and nothing unreadable shifts a score), mapped r/(r+1) into
// [0, 1) as upstream maps ts_rank_cd.
func keywordLeg(cands []candidate, terms []string, totalLen int) []scored {
	if len(terms) == 0 || len(cands) == 0 {
		return nil
	}
	df := make([]int, len(terms))
	for _, c := range cands {
		for i, t := range terms {
			if c.c.terms[t] > 0 {
				df[i]++
			}
		}
	}
	n := float64(len(cands))
	avg := float64(totalLen) / n
	if avg == 0 {
		avg = 1
	}
	var out []scored
	for _, c := range cands {
		var r float64
		for i, t := range terms {
			tf := float64(c.c.terms[t])
			if tf == 0 {
				continue
			}
			idf := math.Log(1 + (n-float64(df[i])+0.5)/(float64(df[i])+0.5))
			r += idf * tf * (bm25K1 + 1) / (tf + bm25K1*(1-bm25B+bm25B*float64(c.c.n)/avg))
		}
		if r > 0 {
			out = append(out, scored{candidate: c, score: r / (r + 1)})
		}
	}
	return out
}

// fuse is the convex combination of requirements C2: each list min-max
// normalised (a list whose scores are all equal, a single hit included,
// normalises to 1), then alpha*semantic + (1-alpha)*keyword, a side
// missing a chunk adding 0.
func fuse(sem, kw []scored, alpha float64) []scored {
	type key struct {
		doc   string
		index int
	}
	out := map[key]*scored{}
	add := func(list []scored, w float64) {
		if len(list) == 0 {
			return
		}
		lo, hi := list[0].score, list[0].score
		for _, h := range list {
			lo, hi = min(lo, h.score), max(hi, h.score)
		}
		for _, h := range list {
			n := 1.0
			if hi > lo {
				n = (h.score - lo) / (hi - lo)
			}
			k := key{h.doc, h.index}
			if out[k] == nil {
				c := h
				c.score = 0
				out[k] = &c
			}
			out[k].score += w * n
		}
	}
	add(sem, alpha)
	add(kw, 1-alpha)
	res := make([]scored, 0, len(out))
	for _, h := range out {
		res = append(res, *h)
	}
	return res
}

// Stats are container_stats' figures over the documents acc may read.
type Stats struct {
	Documents, Ready, Processing, Failed int
	Chunks                               int
	Bytes                                int64
	Model                                string
	Dims, Vectors                        int
	LastIndexed                          time.Time // zero: never
}

// Stats computes c's statistics as acc sees them.
func (s *Service) Stats(ctx context.Context, acc persist.Access, c *Container) (*Stats, error) {
	readable, err := s.st.FilterIDs(ctx, acc, persist.Filter{ThreadID: docThreadPrefix + c.ID})
	if err != nil {
		return nil, fmt.Errorf("readable documents: %w", err)
	}
	st := &Stats{}
	type md struct {
		m string
		d int
	}
	models := map[md]int{}
	s.idx.mu.RLock()
	for _, id := range readable {
		d := s.idx.docs[id]
		if d == nil {
			continue
		}
		st.Documents++
		st.Bytes += d.size
		switch d.status {
		case Ready:
			st.Ready++
			st.Chunks += len(d.chunks)
			if d.indexedAt.After(st.LastIndexed) {
				st.LastIndexed = d.indexedAt
			}
			if d.model != "" {
				models[md{d.model, d.dims}] += len(d.chunks)
			}
		case Failed:
			st.Failed++
		default:
			st.Processing++
		}
	}
	s.idx.mu.RUnlock()
	best := md{}
	for k, n := range models {
		if n > st.Vectors || n == st.Vectors && (k.m < best.m || best.m == "") {
			best, st.Vectors = k, n
		}
	}
	st.Model, st.Dims = best.m, best.d
	return st, nil
}
