package contextd

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/contextd/contextd/index/chunk"
	"github.com/contextd/contextd/model/builtin"
)

// TestResultPassages: every result of the ranked searches whose
// text_content is truncated carries its passage, and no other (a short
// entry's text_content is its whole text); the passage is the code
// points of the entry's text it says,
// within SEARCH_TRUNCATION_LENGTH, and holds a query word whenever the
// entry's text holds one and the full-text leg found it; a semantic
// result's passage without a query word starts its best chunk (a chunk
// of the text). Entries are long texts with a header of other words, so
// the start of the text (text_content) never holds the match.
func TestResultPassages(t *testing.T) {
	for _, backend := range []string{BackendInProcess, BackendNative} {
		t.Run(backend, func(t *testing.T) { testResultPassages(t, backend) })
	}
}

func testResultPassages(t *testing.T, backend string) {
	ctx := WithPrincipal(context.Background(), Principal{ID: "alice"})
	const chunkSize = 400
	eng, err := Open(ctx, Config{
		DBPath:                 filepath.Join(t.TempDir(), "ctx.db"),
		FTS:                    FTSConfig{Backend: backend, Progress: &strings.Builder{}},
		Embedding:              EmbeddingConfig{Embedder: &builtin.Embedder{}, Provider: "builtin", ChunkSize: chunkSize, ChunkOverlap: 40},
		SearchTruncationLength: 120,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = eng.Close() })
	r := rand.New(rand.NewPCG(7, 11))
	filler := strings.Fields("lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor")
	topics := strings.Fields("kubernetes scheduler timeout certificate backup replica webhook quota")
	texts := map[string]string{}
	for i := range 24 {
		var b strings.Builder
		b.WriteString("// Copyright 2026 The Authors. Licensed under the terms of the licence.\n")
		for line := range 40 {
			for range 8 {
				w := filler[r.IntN(len(filler))]
				if r.IntN(40) == 0 || line == 20+i%10 {
					w = topics[r.IntN(len(topics))]
				}
				b.WriteString(w + " ")
			}
			b.WriteString("\n")
		}
		res, err := eng.Store(ctx, StoreRequest{ThreadID: "docs", Source: "agent", Text: b.String()})
		if err != nil {
			t.Fatal(err)
		}
		texts[res.ContextID] = b.String()
	}
	// Short entries: their text_content is the whole text, within the
	// 120 code points, and they carry no passage.
	for i, topic := range topics {
		text := fmt.Sprintf("Short note %d about the %s and the lorem ipsum.", i, topic)
		res, err := eng.Store(ctx, StoreRequest{ThreadID: "docs", Source: "agent", Text: text})
		if err != nil {
			t.Fatal(err)
		}
		texts[res.ContextID] = text
	}
	shortSeen := 0
	holds := func(text string, words []string) bool {
		for _, tok := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return r == ' ' || r == '\n' || r == '.' }) {
			for _, w := range words {
				if tok == w {
					return true
				}
			}
		}
		return false
	}
	check := func(what string, v EntryView, p *Passage, words []string, textHit bool) {
		t.Helper()
		id, text := v.ID, texts[v.ID]
		if utf8.RuneCountInString(text) <= 120 {
			shortSeen++
			if p != nil || v.TextContent != text || v.IsTextContentTruncated == nil || *v.IsTextContentTruncated {
				t.Fatalf("%s: short result %s: passage %+v, text_content %q", what, id, p, v.TextContent)
			}
			return
		}
		if p == nil {
			t.Fatalf("%s: result %s without passage", what, id)
		}
		runes := []rune(text)
		if p.Start < 0 || p.End > len(runes) || p.Start > p.End || string(runes[p.Start:p.End]) != p.Text {
			t.Fatalf("%s: passage [%d, %d) %q is not the entry's text there", what, p.Start, p.End, p.Text)
		}
		if n := utf8.RuneCountInString(p.Text); n == 0 || n > 120 {
			t.Fatalf("%s: passage of %d code points", what, n)
		}
		if want := strings.Count(string(runes[:p.Start]), "\n") + 1; p.StartLine != want || p.EndLine < p.StartLine {
			t.Fatalf("%s: lines %d-%d, want from %d", what, p.StartLine, p.EndLine, want)
		}
		if holds(p.Text, words) {
			return
		}
		if textHit && holds(text, words) && (backend == BackendInProcess) {
			t.Fatalf("%s: the text holds %v, the passage %q does not", what, words, p.Text)
		}
		chunks, err := chunk.Split(text, chunk.Options{Size: chunkSize, Overlap: 40})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range chunks {
			if c.Start == p.Start || c.Start < p.Start && strings.TrimSpace(string(runes[c.Start:p.Start])) == "" {
				return
			}
		}
		if textHit && backend == BackendNative {
			return // no in-process matcher: the start of the text
		}
		t.Fatalf("%s: passage [%d, %d) %q holds no query word and starts no chunk", what, p.Start, p.End, p.Text)
	}
	for q := range 30 {
		words := []string{topics[r.IntN(len(topics))]}
		if q%2 == 1 {
			words = append(words, topics[r.IntN(len(topics))], filler[r.IntN(len(filler))])
		}
		query := strings.Join(words, " ")
		fts, err := eng.FTSSearch(ctx, FTSSearchRequest{Query: strings.Join(words, " OR "), Mode: "boolean", Limit: 20})
		if err != nil {
			t.Fatal(err)
		}
		for _, res := range fts.Results {
			check(fmt.Sprintf("fts %q", query), res.EntryView, res.Passage, words, true)
		}
		sem, err := eng.SemanticSearch(ctx, SemanticSearchRequest{Query: query, Limit: 20})
		if err != nil {
			t.Fatal(err)
		}
		for _, res := range sem.Results {
			check(fmt.Sprintf("semantic %q", query), res.EntryView, res.Passage, nil, false)
		}
		hy, err := eng.HybridSearch(ctx, HybridSearchRequest{Query: query, Limit: 20})
		if err != nil {
			t.Fatal(err)
		}
		for _, res := range hy.Results {
			check(fmt.Sprintf("hybrid %q", query), res.EntryView, res.Passage, words, res.Scores.FTSRank != nil)
		}
		if len(fts.Results) == 0 || len(sem.Results) == 0 || len(hy.Results) == 0 {
			t.Fatalf("%q: %d, %d, %d results", query, len(fts.Results), len(sem.Results), len(hy.Results))
		}
	}
	if shortSeen == 0 {
		t.Fatal("no short entry among the results")
	}
}
