package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/internal/knowledge"
	"github.com/contextd/contextd/internal/lab/paraphrase"
	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/server/setup"
)

// `contextd eval paraphrase` measures how often the entry a paraphrased
// query means is found (internal/paraphrase, testdata/paraphrase): the
// entries and the distractors are stored in a fresh database by an engine
// configured from the environment exactly as the server is (setup.FromEnv
// with only DB_PATH set, and once more with ENABLE_RERANKING=true), and
// each query runs through fts_search_context (the OR of its words),
// semantic_search_context and hybrid_search_context; the same texts,
// uploaded one per document to a knowledge container, are searched with
// Keyword, Semantic and Hybrid (top 10). Reported: the share of queries
// whose entry ranks first, in the top 5 and in the top 10, over all pairs
// and per split.

// paraRun is one tool's result on the set: per pair (in set order) the
// 1-based rank of the pair's entry, 0 when it is not in the top 100.
type paraRun struct {
	method string // fts (OR), semantic, hybrid, each +rerank; knowledge modes
	ranks  []int
}

// at is the share of pairs (those keep selects) ranked within k.
func (r paraRun) at(set *paraphrase.Set, k int, keep func(paraphrase.Pair) bool) float64 {
	hit, n := 0, 0
	for i, p := range set.Pairs {
		if !keep(p) {
			continue
		}
		n++
		if r.ranks[i] > 0 && r.ranks[i] <= k {
			hit++
		}
	}
	if n == 0 {
		return 0
	}
	return float64(hit) / float64(n)
}

func allPairs(paraphrase.Pair) bool    { return true }
func devPairs(p paraphrase.Pair) bool  { return p.Dev() }
func heldPairs(p paraphrase.Pair) bool { return !p.Dev() }

func runEvalParaphrase(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	data, code := parseEvalFlags(evalUsage, repoData(filepath.Join("testdata", "paraphrase")), args, stdout, stderr)
	if code >= 0 {
		return code
	}
	return evalIn(stderr, func(dir string) error {
		set, err := paraphrase.Load(data)
		if err != nil {
			return err
		}
		runs, err := evaluateParaphrase(ctx, set, dir)
		if err != nil {
			return err
		}
		printParaphrase(stdout, set, runs)
		return nil
	})
}

func printParaphrase(w io.Writer, set *paraphrase.Set, runs []paraRun) {
	fmt.Fprintf(w, "Paraphrase set: %d pairs (odd ids: development, even: held out), %d distractors\n\n", len(set.Pairs), len(set.Distractors))
	fmt.Fprintf(w, "| method | top-1 | top-5 | top-10 | top-5 dev | top-5 held out |\n| --- | --- | --- | --- | --- | --- |\n")
	for _, r := range runs {
		fmt.Fprintf(w, "| %s | %.3f | %.3f | %.3f | %.3f | %.3f |\n", r.method,
			r.at(set, 1, allPairs), r.at(set, 5, allPairs), r.at(set, 10, allPairs), r.at(set, 5, devPairs), r.at(set, 5, heldPairs))
	}
}

// evaluateParaphrase stores the set under dir and runs every query.
func evaluateParaphrase(ctx context.Context, set *paraphrase.Set, dir string) ([]paraRun, error) {
	env := map[string]string{"DB_PATH": filepath.Join(dir, "paraphrase.db")}
	open := func(extra map[string]string) (*contextd.Engine, error) {
		cfg, err := setup.FromEnv(func(k string) (string, bool) {
			if v, ok := extra[k]; ok {
				return v, true
			}
			v, ok := env[k]
			return v, ok
		})
		if err != nil {
			return nil, err
		}
		cfg.Engine.FTS.Progress = io.Discard
		return contextd.Open(ctx, cfg.Engine)
	}
	ctx = contextd.WithPrincipal(ctx, contextd.Principal{ID: "eval"})
	eng, err := open(nil)
	if err != nil {
		return nil, err
	}
	target, err := storeParaphrase(ctx, eng, set)
	if err != nil {
		eng.Close()
		return nil, err
	}
	var runs []paraRun
	for _, rerank := range []string{"", "true"} {
		if rerank != "" {
			eng.Close()
			if eng, err = open(map[string]string{"ENABLE_RERANKING": rerank}); err != nil {
				return nil, err
			}
		}
		suffix := map[string]string{"": "", "true": "+rerank"}[rerank]
		for _, m := range []struct {
			name   string
			search func(context.Context, *contextd.Engine, string) ([]string, error)
		}{{"fts (OR)", ftsIDs}, {"semantic", semanticIDs}, {"hybrid", hybridIDs}} {
			run, err := rankParaphrase(ctx, eng, set, target, m.name+suffix, m.search)
			if err != nil {
				eng.Close()
				return nil, err
			}
			runs = append(runs, run)
		}
	}
	defer eng.Close()
	kr, err := knowledgeParaphrase(ctx, eng, set)
	if err != nil {
		return nil, err
	}
	return append(runs, kr...), nil
}

// knowledgeParaphrase uploads every distractor and entry as one knowledge
// document of a new container and ranks each pair's entry with Keyword,
// Semantic and Hybrid (a document's rank is its first chunk's).
func knowledgeParaphrase(ctx context.Context, eng *contextd.Engine, set *paraphrase.Set) ([]paraRun, error) {
	svc := eng.KnowledgeService()
	acc := persist.Access{Principal: "eval"}
	c, err := svc.Create(ctx, acc, nil, "paraphrase", "")
	if err != nil {
		return nil, err
	}
	name := func(i int) string { return fmt.Sprintf("m%04d.txt", i) }
	texts := append(append([]string(nil), set.Distractors...), make([]string, len(set.Pairs))...)
	for i, p := range set.Pairs {
		texts[len(set.Distractors)+i] = p.Entry
	}
	for i, t := range texts {
		if _, err := svc.Upload(ctx, acc, c, knowledge.File{Name: name(i), Data: []byte(t)}); err != nil {
			return nil, fmt.Errorf("knowledge upload: %w", err)
		}
	}
	if err := svc.WaitIdle(ctx); err != nil {
		return nil, err
	}
	target := make([]string, len(set.Pairs))
	for i := range set.Pairs {
		target[i] = name(len(set.Distractors) + i)
	}
	var runs []paraRun
	for _, mode := range []string{knowledge.Keyword, knowledge.Semantic, knowledge.Hybrid} {
		run, err := rankParaphrase(ctx, eng, set, target, "knowledge "+mode, func(ctx context.Context, _ *contextd.Engine, q string) ([]string, error) {
			res, err := svc.Search(ctx, acc, c, knowledge.Query{Text: q, Mode: mode, TopK: 10})
			if err != nil {
				return nil, err
			}
			return resultIDs(res.Hits, func(h knowledge.Hit) string { return h.Name }), nil
		})
		if err != nil {
			return nil, err
		}
		runs = append(runs, run)
	}
	return runs, nil
}

// storeParaphrase stores distractors then entries (so no id order favours
// the answers) and returns the id of each pair's entry.
func storeParaphrase(ctx context.Context, eng *contextd.Engine, set *paraphrase.Set) ([]string, error) {
	texts := append(append([]string(nil), set.Distractors...), make([]string, len(set.Pairs))...)
	for i, p := range set.Pairs {
		texts[len(set.Distractors)+i] = p.Entry
	}
	no := false
	ids := make([]string, 0, len(texts))
	for i := 0; i < len(texts); i += 100 {
		req := contextd.StoreBatchRequest{}
		for _, t := range texts[i:min(i+100, len(texts))] {
			req.Entries = append(req.Entries, contextd.StoreBatchItem{StoreRequest: contextd.StoreRequest{
				ThreadID: "memory", Source: "agent", Text: t, Deduplicate: &no}})
		}
		res, err := eng.StoreBatch(ctx, req)
		if err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		for _, r := range res.Results {
			if !r.Success || r.ContextID == nil {
				return nil, fmt.Errorf("store entry %d failed", len(ids)+1)
			}
			ids = append(ids, *r.ContextID)
		}
	}
	return ids[len(set.Distractors):], nil
}

func rankParaphrase(ctx context.Context, eng *contextd.Engine, set *paraphrase.Set, target []string, name string, search func(context.Context, *contextd.Engine, string) ([]string, error)) (paraRun, error) {
	run := paraRun{method: name, ranks: make([]int, len(set.Pairs))}
	for i, p := range set.Pairs {
		ids, err := search(ctx, eng, p.Query)
		if err != nil {
			return run, fmt.Errorf("%s: pair %d: %w", name, p.ID, err)
		}
		for j, id := range ids {
			if id == target[i] {
				run.ranks[i] = j + 1
				break
			}
		}
	}
	return run, nil
}
