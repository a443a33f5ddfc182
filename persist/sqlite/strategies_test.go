package sqlite

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/persist/persisttest"
)

// The strategies of VectorSearch: the first line of its Plan.
const (
	planExact    = "exact scan (vec_distance_l2)"
	planKNN      = "vec0 knn k=N, then access"
	planFiltered = "vec0 knn k=N over filtered candidates"
)

// strategyStore is a Store whose vector searches run with one strategy
// forced: "exact" never has the sqlite-vec table (EnsureVectorTable drops
// it), "default" is the Store as it is, "knn" has the table and forceKNN.
// It records the strategy and the answer of every search, by the suite
// test that opened it and the search's rank in that test.
type strategyStore struct {
	*Store
	mode string
	test string
	n    int
	log  map[string]map[string]searchRecord // mode -> test#n -> record
}

type searchRecord struct {
	test     string
	strategy string
	answer   string
}

var kPattern = regexp.MustCompile(`k=\d+`)

func (s *strategyStore) Native() persist.Native {
	return persist.Native{FullText: s.Store, Vectors: s}
}

func (s *strategyStore) EnsureVectorTable(ctx context.Context, dim int) error {
	if s.mode == "exact" && dim > 0 {
		return s.Store.DropVectorTable(ctx)
	}
	return s.Store.EnsureVectorTable(ctx, dim)
}

func (s *strategyStore) VectorSearch(ctx context.Context, acc persist.Access, q persist.VectorQuery) (persist.VectorResult, error) {
	explain := q.Explain
	q.Explain = true
	res, err := s.Store.VectorSearch(ctx, acc, q)
	strategy, _, _ := strings.Cut(res.Plan, "\n")
	s.n++
	s.log[s.mode][fmt.Sprintf("%s#%d", s.test, s.n)] = searchRecord{
		test:     s.test,
		strategy: kPattern.ReplaceAllString(strategy, "k=N"),
		answer:   fmt.Sprint(res.Hits, err),
	}
	if !explain {
		res.Plan = ""
	}
	return res, err
}

// TestVectorStrategies runs the suite's native vector search tests (the
// oracle among them) with each strategy forced: every strategy gives the
// suite's answers, every search gives the same answer under each, and each
// strategy answers the searches it is meant for.
func TestVectorStrategies(t *testing.T) {
	modes := []string{"exact", "default", "knn"}
	log := map[string]map[string]searchRecord{}
	for _, mode := range modes {
		log[mode] = map[string]searchRecord{}
		t.Run(mode, func(t *testing.T) {
			if mode == "knn" {
				forceKNN(t)
			}
			prefix := t.Name() + "/"
			persisttest.RunNativeVectors(t, func(t *testing.T) persist.Store {
				return &strategyStore{Store: openMem(t), mode: mode, test: strings.TrimPrefix(t.Name(), prefix), log: log}
			})
		})
	}
	if t.Failed() {
		return
	}
	strategies := map[string]int{}
	for _, mode := range modes {
		for key, r := range log[mode] {
			strategies[mode+" "+r.test+": "+r.strategy]++
			if x, ok := log["exact"][key]; !ok || x.answer != r.answer {
				t.Errorf("%s %s: %s, exact %s", mode, key, r.answer, x.answer)
			}
			switch {
			case mode == "exact" && r.strategy != planExact && r.strategy != "":
				t.Errorf("exact %s used %q", key, r.strategy)
			case mode == "knn" && r.test == "Filters" && !strings.HasPrefix(r.strategy, "vec0 knn"):
				t.Errorf("knn %s: the filter was not searched by the KNN: %q", key, r.strategy)
			}
		}
		if len(log[mode]) != len(log["exact"]) {
			t.Errorf("%s made %d searches, exact %d", mode, len(log[mode]), len(log["exact"]))
		}
	}
	// The oracle's searches went through every strategy of each mode.
	for _, k := range []string{"exact Oracle: " + planExact, "default Oracle: " + planExact,
		"default Oracle: " + planKNN, "knn Oracle: " + planKNN, "knn Oracle: " + planFiltered} {
		if strategies[k] == 0 {
			t.Errorf("no search answered by %q", k)
		}
	}
	filters := 0
	for k, n := range strategies {
		if strings.HasPrefix(k, "knn Filters: ") {
			filters += n
		}
	}
	if filters == 0 {
		t.Errorf("no search of the suite's Filters test recorded")
	}
	t.Logf("strategies: %v", strategies)
}
