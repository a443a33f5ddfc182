package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/internal/testtier"
	"github.com/contextd/contextd/persist/postgres"
	"github.com/contextd/contextd/persist/postgres/pgtest"
)

// TestCranfieldEvalPostgreSQL runs the Cranfield evaluation on a
// PostgreSQL store: the in-process indexes built from PostgreSQL (every
// method) and PostgreSQL's own tsvector full text (SEARCH_BACKEND=native;
// its semantic and hybrid runs need pgvector, which the Debian PostgreSQL
// 15 lacks: TestCranfieldEvalPgvector runs them on PGlite). The in-process runs hold SQLite's floors
// (the indexes see the same documents whichever database holds them),
// except semantic search, measured at 0.2256 once chunk vectors are
// stored as codes (the h-quant2 default).
func TestCranfieldEvalPostgreSQL(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(filepath.Join(cranfieldDir, "cran.qry")); err != nil {
		t.Skipf("Cranfield data not found at %s: %v", cranfieldDir, err)
	}
	url, schema := pgtest.Schema(t)
	testtier.Long(t)
	col, err := loadCranfield(cranfieldDir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := postgres.Open(ctx, postgres.Options{URL: url, Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	runs, err := evaluateCranfieldOn(ctx, col, st, func(backend, method string) bool {
		return backend == contextd.BackendNative && !strings.HasPrefix(method, "fts")
	})
	if err != nil {
		t.Fatal(err)
	}
	floors := map[string]float64{
		"in-process fts": 0.37, "in-process fts+rerank": 0.38,
		"in-process semantic": 0.22, "in-process semantic+rerank": 0.35,
		"in-process hybrid": 0.37, "in-process hybrid+rerank": 0.38,
		"native fts": 0.31, "native fts+rerank": 0.35,
	}
	checkRuns(t, "postgresql", runs, floors)
	for _, m := range []string{"fts", "fts+rerank"} {
		a, _ := findRun(runs, "in-process", m)
		b, _ := findRun(runs, "native", m)
		t.Logf("%s top-10 overlap in-process vs postgresql tsvector %.3f", m, topOverlap(a.ranked, b.ranked, 10))
	}
}

// TestCranfieldEvalPgvector runs the Cranfield runs TestCranfieldEvalPostgreSQL
// cannot: semantic and hybrid search with SEARCH_BACKEND=native on
// PostgreSQL 18 with pgvector (PGlite, started by the test script). The
// vectors are the built-in embedder's, as on SQLite (sqlite-vec), so the
// semantic run lands on SQLite's native 0.2393; the floors are below the
// measured values (README). About 4.5 minutes on PGlite with the machine
// loaded (storing 1,400 entries through WebAssembly PostgreSQL).
func TestCranfieldEvalPgvector(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(filepath.Join(cranfieldDir, "cran.qry")); err != nil {
		t.Skipf("Cranfield data not found at %s: %v", cranfieldDir, err)
	}
	testtier.Long(t)
	url, schema := pgtest.Lite(t)
	col, err := loadCranfield(cranfieldDir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	none := 0
	st, err := postgres.Open(ctx, postgres.Options{URL: url, Schema: schema, PoolMin: 1, PoolMax: pgtest.LiteEngineConns, StatementCacheSize: &none})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	runs, err := evaluateCranfieldOn(ctx, col, st, func(backend, method string) bool {
		return backend != contextd.BackendNative || strings.HasPrefix(method, "fts")
	})
	if err != nil {
		t.Fatal(err)
	}
	// Measured 2026-12-03: semantic 0.2393 (sqlite-vec's exactly: the same
	// vectors, the exact scan or an HNSW walk that found the same top 10),
	// +rerank 0.3663; hybrid 0.3311 (its full-text leg is tsvector's, 0.323
	// alone, where SQLite's is FTS5's 0.369), +rerank 0.3801.
	floors := map[string]float64{
		"native semantic": 0.23, "native semantic+rerank": 0.36,
		"native hybrid": 0.32, "native hybrid+rerank": 0.37,
	}
	checkRuns(t, "pgvector", runs, floors)
}

// checkRuns logs every run and checks that each judged the 225 queries,
// has a floor and reaches it, and that every floor had its run.
func checkRuns(t *testing.T, label string, runs []evalRun, floors map[string]float64) {
	t.Helper()
	for _, r := range runs {
		t.Logf("%s %s: nDCG@10 %.4f (odd %.4f, even %.4f)  P@10 %.4f  MAP %.4f  MRR %.4f", label, r.name(), r.ndcg10, r.half(1), r.half(0), r.p10, r.mapScore, r.mrr)
		if r.judged != 225 {
			t.Fatalf("%s: %d judged queries, want 225", r.name(), r.judged)
		}
		if floor, ok := floors[r.name()]; !ok || r.ndcg10 < floor {
			t.Errorf("%s: nDCG@10 %.4f below its floor %.2f", r.name(), r.ndcg10, floor)
		}
	}
	if len(runs) != len(floors) {
		t.Fatalf("%d runs, want %d", len(runs), len(floors))
	}
}
