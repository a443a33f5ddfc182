package contextd

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contextd/contextd/internal/testtier"
	"github.com/contextd/contextd/model/builtin"
)

// The side channel: a score must not tell bob anything about
// entries he cannot read. scoreWorld drives three principals through
// generated operations over a small vocabulary (so every term is shared
// by readable and unreadable entries) and compares, around every batch of
// alice's and carol's operations on entries bob cannot read, bob's
// rankings and scores: fts_score and rerank_score of fts searches (match,
// conjunction, a long OR that takes the term-pruning path, prefixes), the hybrid
// scores, and rerank_score of reranked semantic searches.

var scoreWords = strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima")

// scoreEngine opens an engine with the built-in embedder and the default
// built-in reranker (the lexical score blended with embedding similarity)
// on the full-text backend given.
func scoreEngine(t *testing.T, backend string) *Engine {
	t.Helper()
	emb := &builtin.Embedder{}
	eng, err := Open(context.Background(), Config{
		DBPath:    filepath.Join(t.TempDir(), "ctx.db"),
		FTS:       FTSConfig{Backend: backend, Progress: &strings.Builder{}},
		Embedding: EmbeddingConfig{Embedder: emb, Provider: "builtin"},
		Rerank:    RerankConfig{Reranker: builtin.Blend{Embedder: emb}, Provider: "builtin", Model: "lexical-semantic"},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = eng.Close() })
	return eng
}

// scoreWorld is the generated history: who owns what, and what bob reads.
type scoreWorld struct {
	t        *testing.T
	eng      *Engine
	r        *rand.Rand
	owner    map[string]string // entry id -> owner
	bobReads map[string]bool   // entries bob can read (own, public, shared)
	ops      int
}

func (w *scoreWorld) text() string {
	n := 2 + w.r.IntN(10)
	words := make([]string, n)
	for i := range words {
		words[i] = scoreWords[w.r.IntN(len(scoreWords))]
	}
	return strings.Join(words, " ")
}

func (w *scoreWorld) store(who, visibility string) string {
	w.t.Helper()
	no := false
	res, err := w.eng.Store(as(who), StoreRequest{ThreadID: "t" + who, Source: "user", Text: w.text(), Visibility: visibility, Deduplicate: &no})
	if err != nil || !res.Success {
		w.t.Fatalf("store by %s: %v %+v", who, err, res)
	}
	w.owner[res.ContextID] = who
	if who == "bob" || visibility == VisibilityPublic {
		w.bobReads[res.ContextID] = true
	}
	w.ops++
	return res.ContextID
}

// hidden picks an entry of who that bob cannot read ("" when none).
func (w *scoreWorld) hidden(who string) string {
	var ids []string
	for id, o := range w.owner {
		if o == who && !w.bobReads[id] {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return ""
	}
	// Map order is random: sort for a reproducible history.
	slices.Sort(ids)
	return ids[w.r.IntN(len(ids))]
}

// visibleOp is an operation that may change what bob reads: bob stores or
// updates his own entry, alice or carol publish one or share a private
// entry with bob.
func (w *scoreWorld) visibleOp() {
	w.t.Helper()
	switch w.r.IntN(4) {
	case 0:
		w.store("bob", VisibilityPrivate)
	case 1:
		w.store([]string{"alice", "carol"}[w.r.IntN(2)], VisibilityPublic)
	case 2:
		who := []string{"alice", "carol"}[w.r.IntN(2)]
		id := w.hidden(who)
		if id == "" {
			w.store(who, VisibilityPrivate)
			return
		}
		if _, err := w.eng.Share(as(who), ShareRequest{ContextID: id, PrincipalType: "user", PrincipalID: "bob", Permission: "read"}); err != nil {
			w.t.Fatal(err)
		}
		w.bobReads[id] = true
		w.ops++
	default:
		id := w.store("bob", VisibilityPrivate)
		text := w.text()
		if _, err := w.eng.Update(as("bob"), UpdateRequest{ContextID: id, Text: &text}); err != nil {
			w.t.Fatal(err)
		}
		w.ops++
	}
}

// hiddenOp is an operation by alice or carol on an entry bob cannot read
// (before and after): store, update, delete, or share with the other
// one or with a group bob is not in.
func (w *scoreWorld) hiddenOp() {
	w.t.Helper()
	who := []string{"alice", "carol"}[w.r.IntN(2)]
	id := w.hidden(who)
	op := w.r.IntN(5)
	if id == "" {
		op = 0
	}
	switch op {
	case 0, 1:
		w.store(who, VisibilityPrivate)
		return
	case 2:
		text := w.text()
		if _, err := w.eng.Update(as(who), UpdateRequest{ContextID: id, Text: &text}); err != nil {
			w.t.Fatal(err)
		}
	case 3:
		if _, err := w.eng.Delete(as(who), DeleteRequest{ContextIDs: []string{id}}); err != nil {
			w.t.Fatal(err)
		}
		delete(w.owner, id)
	default:
		other, typ := map[string]string{"alice": "carol", "carol": "alice"}[who], "user"
		if w.r.IntN(2) == 0 {
			other, typ = "ops", "group"
		}
		if _, err := w.eng.Share(as(who), ShareRequest{ContextID: id, PrincipalType: typ, PrincipalID: other, Permission: "read"}); err != nil {
			w.t.Fatal(err)
		}
	}
	w.ops++
}

// bobSees is every ranking bob's queries produce, as ids with their
// scores (JSON keeps the shortest exact form of a float64, so equal
// strings mean bit-identical scores).
func (w *scoreWorld) bobSees() string {
	w.t.Helper()
	bob := as("bob")
	var b strings.Builder
	put := func(kind string, id string, scores any) {
		j, err := json.Marshal(scores)
		if err != nil {
			w.t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %s %s\n", kind, id, j)
	}
	for _, q := range []struct{ text, mode string }{
		{"delta", ""}, {"alpha echo", ""}, {"golf OR kilo OR lima OR bravo", "boolean"}, {"hotel india", "phrase"},
		{"ind", "prefix"}, {"gol ech", "prefix"}, {"kilo OR char*", "boolean"},
	} {
		res, err := w.eng.FTSSearch(bob, FTSSearchRequest{Query: q.text, Mode: q.mode, Limit: 50})
		if err != nil || res.Error != "" {
			w.t.Fatalf("fts %q: %v %s", q.text, err, res.Error)
		}
		for _, r := range res.Results {
			put("fts:"+q.text, r.ID, r.Scores)
		}
	}
	for _, q := range []string{"charlie foxtrot juliet", "echo"} {
		res, err := w.eng.HybridSearch(bob, HybridSearchRequest{Query: q, Limit: 50})
		if err != nil || res.Error != "" {
			w.t.Fatalf("hybrid %q: %v %s", q, err, res.Error)
		}
		for _, r := range res.Results {
			put("hybrid:"+q, r.ID, r.Scores)
		}
		sem, err := w.eng.SemanticSearch(bob, SemanticSearchRequest{Query: q, Limit: 50})
		if err != nil || sem.Error != "" {
			w.t.Fatalf("semantic %q: %v %s", q, err, sem.Error)
		}
		for _, r := range sem.Results {
			if r.Scores.RerankScore == nil {
				w.t.Fatalf("semantic %q: %s not reranked", q, r.ID)
			}
			put("semantic:"+q, r.ID, r.Scores)
		}
	}
	return b.String()
}

// runScoreWorld runs ops generated operations on eng and returns how many
// batches of hidden operations changed what bob sees, with the first
// difference.
func runScoreWorld(t *testing.T, eng *Engine, ops int) (changed, batches int, first string) {
	w := &scoreWorld{t: t, eng: eng, r: rand.New(rand.NewPCG(11, 307)), owner: map[string]string{}, bobReads: map[string]bool{}}
	for range 12 {
		w.visibleOp()
		w.hiddenOp()
	}
	for w.ops < ops {
		for range 1 + w.r.IntN(3) {
			w.visibleOp()
		}
		before := w.bobSees()
		for range 1 + w.r.IntN(8) {
			w.hiddenOp()
		}
		after := w.bobSees()
		batches++
		if before != after {
			changed++
			if first == "" {
				first = firstDiff(before, after)
			}
		}
	}
	return changed, batches, first
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range max(len(al), len(bl)) {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d: before %q, after %q", i+1, x, y)
		}
	}
	return ""
}

// TestScoresIgnoreUnreadableEntries is the property: in-process,
// bob's results and scores (fts, hybrid, reranked fts and semantic) are
// bit-identical before and after every batch of other principals'
// operations on entries he cannot read, over 1,000 generated operations
// (250 in the quick tier and under -race: testtier.Share; at 1,000 it was
// the root package's longest test, 12 s of CPU).
func TestScoresIgnoreUnreadableEntries(t *testing.T) {
	eng := scoreEngine(t, BackendInProcess)
	changed, batches, first := runScoreWorld(t, eng, testtier.Share(t, 1000))
	if changed > 0 {
		t.Fatalf("%d of %d batches of hidden operations changed bob's results; first: %s", changed, batches, first)
	}
	t.Logf("%d batches, bob's results unchanged by each", batches)
}

// TestNativeScoresCountEveryEntryR307: SEARCH_BACKEND=native keeps the
// reference's collection-wide statistics, so the same history
// moves bob's scores; this is also what shows the property test able to
// fail.
func TestNativeScoresCountEveryEntryR307(t *testing.T) {
	eng := scoreEngine(t, BackendNative)
	changed, batches, first := runScoreWorld(t, eng, 200)
	if changed == 0 {
		t.Fatalf("none of %d batches of hidden operations moved bob's scores on the native backend", batches)
	}
	t.Logf("%d of %d batches moved bob's scores; first: %s", changed, batches, first)
}

// storeAllAs stores texts as who's private entries, in batches, and
// returns their ids.
func storeAllAs(t *testing.T, eng *Engine, who string, texts []string) []string {
	t.Helper()
	no := false
	var ids []string
	for len(texts) > 0 {
		n := min(100, len(texts))
		items := make([]StoreBatchItem, n)
		for i, text := range texts[:n] {
			items[i].StoreRequest = StoreRequest{ThreadID: "t" + who, Source: "user", Text: text, Visibility: VisibilityPrivate, Deduplicate: &no}
		}
		texts = texts[n:]
		res, err := eng.StoreBatch(as(who), StoreBatchRequest{Entries: items})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range res.Results {
			if !it.Success || it.ContextID == nil {
				t.Fatalf("store by %s: %+v", who, it)
			}
			ids = append(ids, *it.ContextID)
		}
	}
	return ids
}

// poolTexts are 600 texts of bob's holding golf, kilo or both, a third of
// them the same text (equal scores, so which of them reach the page
// depends on the tie order alone).
func poolTexts(r *rand.Rand) []string {
	fill := strings.Fields("alpha bravo charlie delta echo foxtrot hotel india juliet lima")
	var out []string
	for i := range 600 {
		if i%3 == 0 {
			out = append(out, "golf kilo lima")
			continue
		}
		var words []string
		g, k := r.IntN(4), r.IntN(4)
		if g+k == 0 {
			g = 1
		}
		for range g {
			words = append(words, "golf")
		}
		for range k {
			words = append(words, "kilo")
		}
		for range r.IntN(16) {
			words = append(words, fill[r.IntN(len(fill))])
		}
		r.Shuffle(len(words), func(i, j int) { words[i], words[j] = words[j], words[i] })
		out = append(out, strings.Join(words, " "))
	}
	return out
}

// bobPoolSees is bob's rankings with scores over queries whose matches
// outnumber Bleve's candidate pool.
func bobPoolSees(t *testing.T, eng *Engine) string {
	t.Helper()
	var b strings.Builder
	put := func(kind, id string, scores any) {
		j, err := json.Marshal(scores)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %s %s\n", kind, id, j)
	}
	for _, q := range []struct{ text, mode string }{
		{"golf OR kilo", "boolean"}, {"golf kilo", ""}, {"golf", ""}, {"golf OR kilo OR lima OR echo", "boolean"}, {"gol ki", "prefix"},
	} {
		res, err := eng.FTSSearch(as("bob"), FTSSearchRequest{Query: q.text, Mode: q.mode, Limit: 50})
		if err != nil || res.Error != "" {
			t.Fatalf("fts %q: %v %s", q.text, err, res.Error)
		}
		for _, x := range res.Results {
			put("fts:"+q.text, x.ID, x.Scores)
		}
	}
	res, err := eng.HybridSearch(as("bob"), HybridSearchRequest{Query: "golf kilo lima", Limit: 50})
	if err != nil || res.Error != "" {
		t.Fatalf("hybrid: %v %s", err, res.Error)
	}
	for _, x := range res.Results {
		put("hybrid", x.ID, x.Scores)
	}
	out := b.String()
	if n := strings.Count(out, "\n"); n < 200 {
		t.Fatalf("bob sees %d results", n)
	}
	return out
}

// TestScoresIgnoreUnreadableEntriesBeyondPool: the property when bob's
// matches outnumber the candidate pool Bleve would pick by its own,
// collection-wide statistics (200 per search, up to 1,000 on the pruning
// path). Bob reads 600 entries holding golf, kilo or both; alice's hidden
// entries then make golf common and long texts frequent in the whole
// index (so Bleve's idf and average length move), are rewritten and
// deleted. Bob's rankings and scores must not move: the candidates are
// selected over his readable set (index/exact.go).
func TestScoresIgnoreUnreadableEntriesBeyondPool(t *testing.T) {
	eng := scoreEngine(t, BackendInProcess)
	r := rand.New(rand.NewPCG(11, 200))
	// Alice holds hidden entries from the start: bob never reads every
	// entry, before or after.
	storeAllAs(t, eng, "alice", []string{"zulu yankee", "xray whiskey victor"})
	storeAllAs(t, eng, "bob", poolTexts(r))
	before := bobPoolSees(t, eng)
	var golfy []string
	for range 1500 {
		golfy = append(golfy, strings.Repeat("golf ", 1+r.IntN(3))+strings.Repeat("lima zulu ", r.IntN(30)))
	}
	hidden := storeAllAs(t, eng, "alice", golfy)
	if after := bobPoolSees(t, eng); after != before {
		t.Fatalf("alice's hidden stores changed bob's results: %s", firstDiff(before, after))
	}
	for _, id := range hidden[:300] {
		text := "kilo kilo kilo " + strings.Repeat("echo ", r.IntN(40))
		if _, err := eng.Update(as("alice"), UpdateRequest{ContextID: id, Text: &text}); err != nil {
			t.Fatal(err)
		}
	}
	if after := bobPoolSees(t, eng); after != before {
		t.Fatalf("alice's hidden updates changed bob's results: %s", firstDiff(before, after))
	}
	for i := 300; i < 1300; i += 100 {
		if _, err := eng.Delete(as("alice"), DeleteRequest{ContextIDs: hidden[i : i+100]}); err != nil {
			t.Fatal(err)
		}
	}
	if after := bobPoolSees(t, eng); after != before {
		t.Fatalf("alice's hidden deletes changed bob's results: %s", firstDiff(before, after))
	}
}

// TestScoresIgnoreUnreadableEntriesAllReadable: the one bit.
// Bob reads every entry (his own and alice's public ones); the first entry
// he cannot read, one that matches none of his queries, must not change
// his results, nor its deletion, which makes him read every entry again.
// With Bleve's pool for a caller who reads everything (the code before),
// the first hidden entry moved bob from Bleve's pool to the exact top.
func TestScoresIgnoreUnreadableEntriesAllReadable(t *testing.T) {
	eng := scoreEngine(t, BackendInProcess)
	r := rand.New(rand.NewPCG(11, 201))
	no := false
	for _, text := range []string{"golf public notes", "kilo lima public"} {
		res, err := eng.Store(as("alice"), StoreRequest{ThreadID: "talice", Source: "user", Text: text, Visibility: VisibilityPublic, Deduplicate: &no})
		if err != nil || !res.Success {
			t.Fatalf("store: %v %+v", err, res)
		}
	}
	storeAllAs(t, eng, "bob", poolTexts(r))
	before := bobPoolSees(t, eng)
	hidden := storeAllAs(t, eng, "alice", []string{"zulu yankee"})
	if after := bobPoolSees(t, eng); after != before {
		t.Fatalf("the first entry bob cannot read changed his results: %s", firstDiff(before, after))
	}
	if _, err := eng.Delete(as("alice"), DeleteRequest{ContextIDs: hidden}); err != nil {
		t.Fatal(err)
	}
	if after := bobPoolSees(t, eng); after != before {
		t.Fatalf("deleting the only entry bob cannot read changed his results: %s", firstDiff(before, after))
	}
}
