package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/internal/knowledge"
	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/server"
	"github.com/contextd/contextd/server/setup"
)

// `contextd eval docs` and `contextd eval code` ask judged questions of a
// folder ingested with `contextd ingest` (one entry per file): the
// documentation set (a fictional product's manual, the knowledge
// evaluation's corpus) and the code set (a slice of the Go standard
// library's source, testdata/gocode). Each question names the files that
// answer it; a ranking scores the reciprocal rank of its first answering
// file in the top 10 (MRR@10). The context tools run as
// fts_search_context over the OR of the question's words, as
// semantic_search_context and hybrid_search_context on the raw question,
// each without and with the reranker; the knowledge tools run Keyword,
// Semantic and Hybrid over the same files uploaded to one container. The
// figures are printed per half (even positions choose settings, odd ones
// check them) and per kind (lexical: the question uses the answer's
// words; paraphrase: it does not).

// evalQuestion is one judged question.
type evalQuestion struct {
	Q    string   `json:"q"`
	Kind string   `json:"kind"` // lexical or paraphrase
	Rel  []string `json:"rel"`  // answering files, relative to the corpus folder
}

// questionSet is a corpus folder and its questions.
type questionSet struct {
	name, corpus string
	questions    []evalQuestion
}

// loadQuestionSet reads questions.json of dir; the corpus is dir/corpus
// (the documentation set) or dir/src (the code set).
func loadQuestionSet(name, dir string) (*questionSet, error) {
	b, err := os.ReadFile(filepath.Join(dir, "questions.json"))
	if err != nil {
		return nil, err
	}
	s := &questionSet{name: name}
	if err := json.Unmarshal(b, &s.questions); err != nil {
		return nil, fmt.Errorf("questions.json: %w", err)
	}
	for _, sub := range []string{"corpus", "src"} {
		if fi, err := os.Stat(filepath.Join(dir, sub)); err == nil && fi.IsDir() {
			s.corpus = filepath.Join(dir, sub)
		}
	}
	if s.corpus == "" {
		return nil, fmt.Errorf("%s holds neither corpus/ nor src/", dir)
	}
	for _, q := range s.questions {
		for _, r := range q.Rel {
			if _, err := os.Stat(filepath.Join(s.corpus, r)); err != nil {
				return nil, fmt.Errorf("question %q: answer %s: %w", q.Q, r, err)
			}
		}
	}
	return s, nil
}

// questionRun is one method's reciprocal ranks, per question.
type questionRun struct {
	method string
	rr     []float64
}

// questionSubset is a half ("choose": even positions, "check": odd; ""
// both) and a kind ("" both).
type questionSubset struct{ half, kind string }

var questionSubsets = []questionSubset{{"", ""}, {"choose", ""}, {"check", ""},
	{"choose", "lexical"}, {"choose", "paraphrase"}, {"check", "lexical"}, {"check", "paraphrase"}}

func (s questionSubset) has(i int, q evalQuestion) bool {
	h := "choose"
	if i%2 == 1 {
		h = "check"
	}
	return (s.half == "" || s.half == h) && (s.kind == "" || s.kind == q.Kind)
}

func (s questionSubset) String() string {
	switch {
	case s.half == "":
		return "all"
	case s.kind == "":
		return s.half
	}
	return s.half + " " + s.kind
}

// mrr is the run's MRR@10 over the questions of sub.
func (r questionRun) mrr(qs []evalQuestion, sub questionSubset) float64 {
	sum, n := 0.0, 0
	for i, q := range qs {
		if sub.has(i, q) {
			sum += r.rr[i]
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

func runEvalQuestions(ctx context.Context, name string, args []string, stdout, stderr io.Writer) int {
	def := map[string]string{"docs": filepath.Join("internal", "lab", "keval", "testdata"), "code": filepath.Join("testdata", "gocode")}[name]
	data, code := parseEvalFlags(evalUsage, repoData(def), args, stdout, stderr)
	if code >= 0 {
		return code
	}
	return evalIn(stderr, func(dir string) error {
		set, err := loadQuestionSet(name, data)
		if err != nil {
			return fmt.Errorf("%w (%s)", err, dataHint)
		}
		runs, err := evaluateQuestions(ctx, set, dir)
		if err != nil {
			return err
		}
		printQuestions(stdout, set, runs)
		return nil
	})
}

func printQuestions(w io.Writer, set *questionSet, runs []questionRun) {
	fmt.Fprintf(w, "%s set: %d questions, MRR@10\n\n| method |", set.name, len(set.questions))
	for _, s := range questionSubsets {
		fmt.Fprintf(w, " %s |", s)
	}
	fmt.Fprint(w, "\n| --- |"+strings.Repeat(" --- |", len(questionSubsets))+"\n")
	for _, r := range runs {
		fmt.Fprintf(w, "| %s |", r.method)
		for _, s := range questionSubsets {
			fmt.Fprintf(w, " %.3f |", r.mrr(set.questions, s))
		}
		fmt.Fprintln(w)
	}
}

// evaluateQuestions ingests the corpus into a fresh database under dir
// with `contextd ingest`, uploads it to a knowledge container, and runs
// every method.
func evaluateQuestions(ctx context.Context, set *questionSet, dir string) ([]questionRun, error) {
	env := map[string]string{"DB_PATH": filepath.Join(dir, "eval.db")}
	lookup := func(extra map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) {
			if v, ok := extra[k]; ok {
				return v, true
			}
			v, ok := env[k]
			return v, ok
		}
	}
	if code := runIngest(ctx, []string{set.corpus, "--thread", "kb:eval", "--no-cache"}, lookup(nil), io.Discard, io.Discard); code != exitOK {
		return nil, fmt.Errorf("contextd ingest %s: exit status %d", set.corpus, code)
	}
	open := func(extra map[string]string) (*contextd.Engine, error) {
		cfg, err := setup.FromEnv(lookup(extra))
		if err != nil {
			return nil, err
		}
		cfg.Engine.FTS.Progress = io.Discard
		return contextd.Open(ctx, cfg.Engine)
	}
	// The principal ingest writes as (the server's default on stdio).
	ctx = contextd.WithPrincipal(ctx, contextd.Principal{ID: server.DefaultPrincipal})
	var runs []questionRun
	for _, rerank := range []string{"false", "true"} {
		eng, err := open(map[string]string{"ENABLE_RERANKING": rerank})
		if err != nil {
			return nil, err
		}
		suffix := ""
		if rerank == "true" {
			suffix = "+rerank"
		}
		for _, m := range []struct {
			name   string
			search func(context.Context, *contextd.Engine, string) ([]string, error)
		}{{"fts (OR)", ftsPaths}, {"semantic", semanticPaths}, {"hybrid", hybridPaths}} {
			run, err := askAll(ctx, eng, set, m.name+suffix, m.search)
			if err != nil {
				eng.Close()
				return nil, err
			}
			runs = append(runs, run)
		}
		if rerank == "false" {
			kr, err := knowledgeRuns(ctx, eng, set)
			if err != nil {
				eng.Close()
				return nil, err
			}
			runs = append(runs, kr...)
		}
		eng.Close()
	}
	return runs, nil
}

// askAll runs every question through search and scores its ranking of
// file paths.
func askAll(ctx context.Context, eng *contextd.Engine, set *questionSet, name string, search func(context.Context, *contextd.Engine, string) ([]string, error)) (questionRun, error) {
	run := questionRun{method: name, rr: make([]float64, len(set.questions))}
	for i, q := range set.questions {
		paths, err := search(ctx, eng, q.Q)
		if err != nil {
			return run, fmt.Errorf("%s: %q: %w", name, q.Q, err)
		}
		run.rr[i] = firstAnswer(paths, q.Rel)
	}
	return run, nil
}

// firstAnswer is the reciprocal rank of the first answering path among
// the first 10 (0 when none is).
func firstAnswer(paths, rel []string) float64 {
	for i, p := range paths[:min(10, len(paths))] {
		for _, r := range rel {
			if p == filepath.ToSlash(r) {
				return 1 / float64(i+1)
			}
		}
	}
	return 0
}

// entryPath is the corpus path of an ingested entry (metadata
// document.path).
func entryPath(meta json.RawMessage) string {
	var m struct {
		Document struct {
			Path string `json:"path"`
		} `json:"document"`
	}
	_ = json.Unmarshal(meta, &m)
	return m.Document.Path
}

func ftsPaths(ctx context.Context, eng *contextd.Engine, q string) ([]string, error) {
	resp, err := eng.FTSSearch(ctx, contextd.FTSSearchRequest{Query: orQuery(q), Mode: "boolean", Limit: 10})
	if err != nil {
		return nil, err
	}
	return resultIDs(resp.Results, func(r contextd.FTSResult) string { return entryPath(r.Metadata) }), nil
}

func semanticPaths(ctx context.Context, eng *contextd.Engine, q string) ([]string, error) {
	resp, err := eng.SemanticSearch(ctx, contextd.SemanticSearchRequest{Query: q, Limit: 10})
	if err != nil {
		return nil, err
	}
	return resultIDs(resp.Results, func(r contextd.SemanticResult) string { return entryPath(r.Metadata) }), nil
}

func hybridPaths(ctx context.Context, eng *contextd.Engine, q string) ([]string, error) {
	resp, err := eng.HybridSearch(ctx, contextd.HybridSearchRequest{Query: q, Limit: 10})
	if err != nil {
		return nil, err
	}
	return resultIDs(resp.Results, func(r contextd.HybridResult) string { return entryPath(r.Metadata) }), nil
}

// knowledgeGoSuffix is appended to the name of a Go file uploaded as a
// knowledge document: upload_file accepts text files, not source code.
const knowledgeGoSuffix = ".txt"

// knowledgeRuns uploads the corpus to a knowledge container (folders as
// in the corpus) and runs Keyword, Semantic and Hybrid: a hit's rank is
// its chunk's, judged by its document's path.
func knowledgeRuns(ctx context.Context, eng *contextd.Engine, set *questionSet) ([]questionRun, error) {
	svc := eng.KnowledgeService()
	acc := persist.Access{Principal: server.DefaultPrincipal}
	c, err := svc.Create(ctx, acc, nil, "eval", "")
	if err != nil {
		return nil, err
	}
	err = filepath.WalkDir(set.corpus, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(set.corpus, filepath.Dir(p))
		folder := ""
		if rel != "." {
			folder = filepath.ToSlash(rel)
		}
		name := d.Name()
		if filepath.Ext(name) == ".go" {
			name += knowledgeGoSuffix // the knowledge tools take no source code
		}
		_, err = svc.Upload(ctx, acc, c, knowledge.File{Name: name, Folder: folder, Data: b})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("knowledge upload: %w", err)
	}
	if err := svc.WaitIdle(ctx); err != nil {
		return nil, err
	}
	var runs []questionRun
	for _, mode := range []string{knowledge.Keyword, knowledge.Semantic, knowledge.Hybrid} {
		run, err := askAll(ctx, eng, set, "knowledge "+mode, func(ctx context.Context, _ *contextd.Engine, q string) ([]string, error) {
			res, err := svc.Search(ctx, acc, c, knowledge.Query{Text: q, Mode: mode, TopK: 10})
			if err != nil {
				return nil, err
			}
			return resultIDs(res.Hits, func(h knowledge.Hit) string {
				return strings.TrimSuffix(strings.TrimPrefix(h.Path, "/"), knowledgeGoSuffix)
			}), nil
		})
		if err != nil {
			return nil, err
		}
		runs = append(runs, run)
	}
	return runs, nil
}
