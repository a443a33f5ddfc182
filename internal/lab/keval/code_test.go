package keval_test

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/internal/knowledge"
	"github.com/contextd/contextd/internal/lab/kgolden"
)

// codeSet is the code evaluation set (`contextd eval code`): questions
// judged by file over a slice of the Go standard library's source.
const codeSet = "../../../testdata/gocode"

// goSuffix is appended to a Go file's name on upload: the knowledge
// tools take text files, not source code (as `contextd eval code` does).
const goSuffix = ".txt"

// openCode uploads the code set's files into a new engine's container,
// in their folders.
func openCode(t *testing.T) *corpus {
	t.Helper()
	ctx := context.Background()
	_, svc, c := openContainer(t, contextd.Config{})
	src := filepath.Join(codeSet, "src")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, filepath.Dir(p))
		folder := ""
		if rel != "." {
			folder = filepath.ToSlash(rel)
		}
		_, err = svc.Upload(ctx, acc, c, knowledge.File{Name: d.Name() + goSuffix, Folder: folder, Data: b})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
	return &corpus{svc: svc, c: c}
}

// TestCodeHybridNotBelowLegs is the acceptance on the code set: on its
// checking half, and on the checking half's lexical and paraphrase
// questions, knowledge Hybrid's MRR@10 is at least Keyword's and
// Semantic's (docs/retrieval-quality.md, "A lexical match by share").
func TestCodeHybridNotBelowLegs(t *testing.T) {
	if testing.Short() {
		t.Skip("uploads and embeds 211 source files")
	}
	b, err := os.ReadFile(filepath.Join(codeSet, "questions.json"))
	if err != nil {
		t.Fatal(err)
	}
	var qs []question
	if err := json.Unmarshal(b, &qs); err != nil {
		t.Fatal(err)
	}
	c := openCode(t)
	r := map[string]map[subset]scores{}
	for _, m := range modes {
		per := make([]float64, len(qs))
		for i, q := range qs {
			res, err := c.svc.Search(context.Background(), acc, c.c, knowledge.Query{Text: q.Q, Mode: m, TopK: 10})
			if err != nil {
				t.Fatalf("%s %q: %v", m, q.Q, err)
			}
			paths := make([]string, len(res.Hits))
			for k, h := range res.Hits {
				paths[k] = strings.TrimSuffix(strings.TrimPrefix(h.Path, "/"), goSuffix)
			}
			grades := map[string]int{}
			for _, f := range q.Rel {
				grades[f] = 1
			}
			per[i] = kgolden.ReciprocalRank(paths, grades)
		}
		r[m] = map[subset]scores{}
		for _, s := range subsets {
			sum, n := 0.0, 0
			for i, q := range qs {
				if s.has(i, q) {
					sum += per[i]
					n++
				}
			}
			r[m][s] = scores{rr: sum / float64(n)}
		}
	}
	report(t, "code set, default fusion (recall not measured)", r)
	for _, s := range []subset{{"check", ""}, {"check", "lexical"}, {"check", "paraphrase"}} {
		h := r[knowledge.Hybrid][s].rr
		for _, m := range []string{knowledge.Keyword, knowledge.Semantic} {
			if l := r[m][s].rr; h < l-1e-9 {
				t.Errorf("%s: Hybrid MRR@10 %.3f below %s %.3f", s, h, m, l)
			}
		}
	}
}
