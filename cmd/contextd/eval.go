package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/contextd/contextd"
	cran "github.com/contextd/contextd/internal/lab/cranfield"
	"github.com/contextd/contextd/model/builtin"
	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/sqlite"
)

// `contextd eval cranfield` measures ranking on the Cranfield 1400
// collection: the documents (title + abstract) are loaded into a fresh
// database with built-in embeddings, the 225 queries run through
// fts_search_context (BM25), semantic_search_context and
// hybrid_search_context, without and with the default built-in reranker
// (lexical score blended with embedding similarity), on each search
// backend, and nDCG@10, P@10, MAP and MRR are printed side by side, nDCG@10
// also per half: odd query numbers for choosing settings, even ones for
// reporting them.

const evalUsage = `usage: contextd eval cranfield [-data DIR]
       contextd eval paraphrase [-data DIR]
       contextd eval docs|code [-data DIR]

  cranfield   nDCG@10, P@10, MAP, MRR on the Cranfield collection; nDCG@10
              also on the odd-numbered queries (for choosing settings) and
              the even-numbered ones (for reporting)
  paraphrase  top-1/5/10 on the paraphrase set (testdata/paraphrase)
  docs, code  MRR@10 of the context and knowledge searches on judged
              questions over documentation (internal/lab/keval/testdata) or
              Go source (testdata/gocode), ingested with contextd ingest
  -data DIR   the collection's folder; default testdata/cranfield or
              testdata/paraphrase of the clone the command runs in
`

func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		fmt.Fprintf(stderr, "contextd eval: missing the collection to evaluate\n%s", evalUsage)
		return exitUsage
	case args[0] == "-h" || args[0] == "-help" || args[0] == "--help":
		fmt.Fprint(stdout, evalUsage)
		return exitOK
	case args[0] == "paraphrase":
		return runEvalParaphrase(ctx, args[1:], stdout, stderr)
	case args[0] == "docs" || args[0] == "code":
		return runEvalQuestions(ctx, args[0], args[1:], stdout, stderr)
	case args[0] != "cranfield":
		fmt.Fprintf(stderr, "contextd eval: unknown collection %q\n%s", args[0], evalUsage)
		return exitUsage
	}
	data, code := parseEvalFlags(evalUsage, repoData(filepath.Join("testdata", "cranfield")), args[1:], stdout, stderr)
	if code >= 0 {
		return code
	}
	return evalIn(stderr, func(dir string) error {
		col, err := loadCranfield(data)
		if err != nil {
			return fmt.Errorf("%w (%s)", err, dataHint)
		}
		runs, err := evaluateCranfield(ctx, col, dir)
		if err != nil {
			return err
		}
		printCranfield(stdout, col, runs)
		return nil
	})
}

// printCranfield prints the runs as a Markdown table.
func printCranfield(stdout io.Writer, col *cranfield, runs []evalRun) {
	fmt.Fprintf(stdout, "Cranfield: %d documents, %d queries (%d judged)\n\n", len(col.Docs), len(col.Queries), runs[0].judged)
	fmt.Fprintf(stdout, "| backend | method | nDCG@10 | odd (choosing) | even (reporting) | P@10 | MAP | MRR | query median |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, r := range runs {
		fmt.Fprintf(stdout, "| %s | %s | %.4f | %.4f | %.4f | %.4f | %.4f | %.4f | %s |\n", r.backend, r.method, r.ndcg10, r.half(1), r.half(0), r.p10, r.mapScore, r.mrr, r.median)
	}
	a, _ := findRun(runs, contextd.BackendInProcess, "fts")
	b, _ := findRun(runs, contextd.BackendNative, "fts")
	fmt.Fprintf(stdout, "\nfts top-10 overlap in-process vs native: %.1f%% (mean over queries)\n", 100*topOverlap(a.ranked, b.ranked, 10))
}

// evalIn runs eval in a fresh temporary directory, removed afterwards, and
// reports its error.
func evalIn(stderr io.Writer, eval func(dir string) error) int {
	dir, err := os.MkdirTemp("", "contextd-eval-")
	if err == nil {
		defer os.RemoveAll(dir)
		err = eval(dir)
	}
	if err != nil {
		fmt.Fprintf(stderr, "contextd: eval: %v\n", err)
		return exitFail
	}
	return exitOK
}

// cranfield is the collection (internal/cranfield): documents, queries in
// file order and graded judgements.
type cranfield = cran.Collection

func loadCranfield(dir string) (*cranfield, error) { return cran.Load(dir) }

var wordRe = regexp.MustCompile(`[\p{L}\p{N}_]+`)

// orQuery is the boolean-mode OR of the query's words longer than one
// character, each quoted: the sanitized OR form of the hybrid search's
// adaptive full-text leg. fts_search_context's match mode ANDs
// every word, which no long natural-language question satisfies.
func orQuery(q string) string {
	var terms []string
	for _, w := range wordRe.FindAllString(q, -1) {
		if len([]rune(w)) > 1 {
			terms = append(terms, `"`+w+`"`)
		}
	}
	return strings.Join(terms, " OR ")
}

// evalRun is the result of one search method on one backend.
type evalRun struct {
	backend                    string // in-process or native
	method                     string // fts, fts+rerank, semantic, hybrid, hybrid+rerank
	ndcg10, p10, mapScore, mrr float64
	judged                     int
	median                     time.Duration
	ranked                     [][]int // per query, the ranked document numbers
	// perQuery is each query's nDCG@10 (NaN for a query without a
	// relevant document), for the halves.
	perQuery []float64
}

// half is the mean nDCG@10 over the judged queries whose number (1-based
// position, as the qrels number them) is odd (parity 1: the half for
// choosing settings) or even (parity 0: the half for reporting).
func (r evalRun) half(parity int) float64 {
	sum, n := 0.0, 0
	for i, v := range r.perQuery {
		if (i+1)%2 == parity && !math.IsNaN(v) {
			sum += v
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// parseEvalFlags reads the -data flag of an eval collection (default def); code is
// -1 to go on, else the exit status.
func parseEvalFlags(usage, def string, args []string, stdout, stderr io.Writer) (data string, code int) {
	fs := newFlagSet("eval") // messages say "contextd eval: ..."
	d := fs.String("data", def, "collection folder")
	if code, done := parseFlags(fs, args, usage, stdout, stderr); done {
		return "", code
	}
	return *d, -1
}

// name is the run's row label.
func (r evalRun) name() string { return r.backend + " " + r.method }

// findRun returns the run of backend and method.
func findRun(runs []evalRun, backend, method string) (evalRun, bool) {
	for _, r := range runs {
		if r.backend == backend && r.method == method {
			return r, true
		}
	}
	return evalRun{}, false
}

// evalMethods are the searches measured on each backend, in print order.
var evalMethods = []struct {
	method string
	rerank bool
	search func(ctx context.Context, eng *contextd.Engine, q string) ([]string, error)
}{
	{"fts", false, ftsIDs},
	{"semantic", false, semanticIDs},
	{"hybrid", false, hybridIDs},
	{"fts+rerank", true, ftsIDs},
	{"semantic+rerank", true, semanticIDs},
	{"hybrid+rerank", true, hybridIDs},
}

// evaluateCranfield loads the collection (with built-in embeddings) into a
// fresh database under dir and runs every query through each method on
// both search backends.
func evaluateCranfield(ctx context.Context, col *cranfield, dir string) ([]evalRun, error) {
	st, err := sqlite.Open(ctx, sqlite.Options{Path: filepath.Join(dir, "cranfield.db")})
	if err != nil {
		return nil, err
	}
	defer st.Close()
	return evaluateCranfieldOn(ctx, col, st, nil)
}

// evaluateCranfieldOn runs the evaluation on an empty store st, skipping
// the (backend, method) pairs skip reports (a store without a native
// vector search has no native semantic or hybrid runs).
func evaluateCranfieldOn(ctx context.Context, col *cranfield, st persist.Store, skip func(backend, method string) bool) ([]evalRun, error) {
	ctx = contextd.WithPrincipal(ctx, contextd.Principal{ID: "eval"})
	var runs []evalRun
	var docOf map[string]int
	emb, dist := &builtin.Embedder{}, &builtin.Distilled{}
	for _, backend := range []string{contextd.BackendInProcess, contextd.BackendNative} {
		for _, rerank := range []bool{false, true} {
			cfg := contextd.Config{Store: st, FTS: contextd.FTSConfig{Backend: backend, Progress: io.Discard},
				Embedding: contextd.EmbeddingConfig{Embedder: emb, Provider: "builtin"}}
			if docOf != nil && skip != nil && skip(backend, "semantic") && skip(backend, "hybrid") &&
				skip(backend, "semantic+rerank") && skip(backend, "hybrid+rerank") {
				// No vector run on this backend: semantic search off, as a
				// deployment without a vector engine (PostgreSQL without
				// pgvector refuses SEARCH_BACKEND=native with it on).
				cfg.Embedding.DisableSemantic = true
			}
			if rerank { // the default reranker (config: RERANKING_PROVIDER=builtin)
				cfg.Rerank = contextd.RerankConfig{Reranker: builtin.Blend{Embedder: emb, Distilled: dist}, Provider: "builtin", Model: builtin.BlendModel}
			}
			eng, err := contextd.Open(ctx, cfg)
			if err != nil {
				return nil, err
			}
			if docOf == nil {
				if docOf, err = loadDocs(ctx, eng, col); err != nil {
					eng.Close()
					return nil, err
				}
			}
			for _, m := range evalMethods {
				if m.rerank != rerank || skip != nil && skip(backend, m.method) {
					continue
				}
				run, err := runQueries(ctx, eng, col, docOf, m.search)
				if err != nil {
					eng.Close()
					return nil, fmt.Errorf("%s %s: %w", backend, m.method, err)
				}
				run.backend, run.method = backend, m.method
				runs = append(runs, run)
			}
			eng.Close()
		}
	}
	return runs, nil
}

// ftsIDs runs fts_search_context in boolean mode over the OR of the
// query's words (orQuery).
func ftsIDs(ctx context.Context, eng *contextd.Engine, q string) ([]string, error) {
	resp, err := eng.FTSSearch(ctx, contextd.FTSSearchRequest{Query: orQuery(q), Mode: "boolean", Limit: 100})
	if err != nil {
		return nil, err
	}
	return resultIDs(resp.Results, func(r contextd.FTSResult) string { return r.ID }), nil
}

// semanticIDs runs semantic_search_context on the raw question.
func semanticIDs(ctx context.Context, eng *contextd.Engine, q string) ([]string, error) {
	resp, err := eng.SemanticSearch(ctx, contextd.SemanticSearchRequest{Query: q, Limit: 100})
	if err != nil {
		return nil, err
	}
	return resultIDs(resp.Results, func(r contextd.SemanticResult) string { return r.ID }), nil
}

// hybridIDs runs hybrid_search_context on the raw question (its adaptive
// full-text leg ORs the words of a long question itself).
func hybridIDs(ctx context.Context, eng *contextd.Engine, q string) ([]string, error) {
	resp, err := eng.HybridSearch(ctx, contextd.HybridSearchRequest{Query: q, Limit: 100})
	if err != nil {
		return nil, err
	}
	return resultIDs(resp.Results, func(r contextd.HybridResult) string { return r.ID }), nil
}

func resultIDs[T any](rs []T, id func(T) string) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = id(r)
	}
	return out
}

func loadDocs(ctx context.Context, eng *contextd.Engine, col *cranfield) (map[string]int, error) {
	docOf := make(map[string]int, len(col.Docs))
	no := false
	for i := 0; i < len(col.Docs); i += 100 {
		batch := col.Docs[i:min(i+100, len(col.Docs))]
		req := contextd.StoreBatchRequest{}
		for _, d := range batch {
			req.Entries = append(req.Entries, contextd.StoreBatchItem{StoreRequest: contextd.StoreRequest{
				ThreadID: "cranfield", Source: "agent", Text: d.Text, Deduplicate: &no,
				Metadata: map[string]any{"cranfield_doc": d.Num},
			}})
		}
		res, err := eng.StoreBatch(ctx, req)
		if err != nil {
			return nil, fmt.Errorf("store documents: %w", err)
		}
		for j, r := range res.Results {
			if !r.Success || r.ContextID == nil {
				return nil, fmt.Errorf("store document %d failed", batch[j].Num)
			}
			docOf[*r.ContextID] = batch[j].Num
		}
	}
	return docOf, nil
}

func runQueries(ctx context.Context, eng *contextd.Engine, col *cranfield, docOf map[string]int, search func(context.Context, *contextd.Engine, string) ([]string, error)) (evalRun, error) {
	var run evalRun
	times := make([]time.Duration, 0, len(col.Queries))
	for i, q := range col.Queries {
		began := time.Now()
		ids, err := search(ctx, eng, q)
		if err != nil {
			return run, fmt.Errorf("query %d: %w", i+1, err)
		}
		times = append(times, time.Since(began))
		ranked := make([]int, len(ids))
		for j, id := range ids {
			ranked[j] = docOf[id]
		}
		run.ranked = append(run.ranked, ranked)
		judg := col.Qrels[i+1]
		if relevantCount(judg) == 0 {
			run.perQuery = append(run.perQuery, math.NaN())
			continue
		}
		run.judged++
		run.perQuery = append(run.perQuery, ndcgAt(ranked, judg, 10))
		run.ndcg10 += ndcgAt(ranked, judg, 10)
		run.p10 += precisionAt(ranked, judg, 10)
		run.mapScore += averagePrecision(ranked, judg)
		run.mrr += reciprocalRank(ranked, judg)
	}
	if n := float64(run.judged); n > 0 {
		run.ndcg10, run.p10, run.mapScore, run.mrr = run.ndcg10/n, run.p10/n, run.mapScore/n, run.mrr/n
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	run.median = times[len(times)/2].Round(10 * time.Microsecond)
	return run, nil
}

func gain(grade int) float64 { return cran.Gain(grade) }

func relevantCount(j map[int]int) int { return cran.Relevant(j) }

func ndcgAt(ranked []int, j map[int]int, k int) float64 { return cran.NDCG(ranked, j, k) }

func precisionAt(ranked []int, j map[int]int, k int) float64 {
	hits := 0
	for _, d := range ranked[:min(k, len(ranked))] {
		if gain(j[d]) > 0 {
			hits++
		}
	}
	return float64(hits) / float64(k)
}

func averagePrecision(ranked []int, j map[int]int) float64 {
	hits, sum := 0, 0.0
	for i, d := range ranked {
		if gain(j[d]) > 0 {
			hits++
			sum += float64(hits) / float64(i+1)
		}
	}
	return sum / float64(relevantCount(j))
}

func reciprocalRank(ranked []int, j map[int]int) float64 {
	for i, d := range ranked {
		if gain(j[d]) > 0 {
			return 1 / float64(i+1)
		}
	}
	return 0
}

// topOverlap is the mean, over queries, of |topk(a) ∩ topk(b)| / k (or /
// the smaller list when both are shorter).
func topOverlap(a, b [][]int, k int) float64 {
	total := 0.0
	for i := range a {
		x, y := a[i][:min(k, len(a[i]))], b[i][:min(k, len(b[i]))]
		den := max(len(x), len(y))
		if den == 0 {
			total++
			continue
		}
		in := map[int]bool{}
		for _, d := range x {
			in[d] = true
		}
		common := 0
		for _, d := range y {
			if in[d] {
				common++
			}
		}
		total += float64(common) / float64(den)
	}
	return total / float64(len(a))
}
