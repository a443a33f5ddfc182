package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/contextd/contextd/internal/lab/testcorpus"
)

// BenchmarkPrefilteredSearch measures fts_search_context's ranking step
// (Index.Search with the engine's rank depth of 100) behind the allowed-set
// prefilter, for a principal holding 1, 100 and 10,000 distinct grants
// and for one who reads every entry (reads-everything), with the catalog bitmap prefilter and with the previous term prefilter
// side by side, and the prefilter step alone. search/catalog scores with
// the statistics of the caller's readable set (stats.go) and selects its
// candidates exactly over that set (exact.go), search/catalog-pool with
// the same statistics but Bleve's candidate pool, and
// search/catalog-globalstats with the statistics of every entry and
// Bleve's pool (the behaviour before both), for the cost of each step.
// search-or/ runs a four-word OR (the term-pruning path of hybrid
// search's full-text leg), search-prefix/ the first four letters of the
// first word in prefix mode.
//
// Corpus: 100,000 paragraphs of the Go source tree's doc comments (the
// corpus of the root package's BenchmarkFTS, read the same way), owned by
// 1,000 users, 10% public, each entry with up to two grants to other users
// or to 200 other groups. The benchmark principals' grants sit on distinct
// random entries: half user grants, half grants to groups of the
// principal (one group per grant), and in the groups=10000 case all
// 10,000 grants through 10,000 group memberships. The principal is also
// in two of the 200 shared groups. The access+thread variants add the
// filter of the thread of one granted entry (about 20 entries).
//
//	go test ./index -run '^$' -bench BenchmarkPrefilteredSearch -benchtime 200x
func BenchmarkPrefilteredSearch(b *testing.B) {
	ix, cases, qs := prefilterBenchIndex(b)
	ctx := context.Background()
	for _, c := range cases {
		for _, v := range []struct {
			name   string
			thread string
		}{{"access", ""}, {"access+thread", c.thread}} {
			base := Query{Mode: "match", Access: c.acc, Size: 100, ThreadID: v.thread}
			b.Run(c.name+"/"+v.name+"/prefilter-only/catalog", func(b *testing.B) {
				b.ReportAllocs()
				var n uint64
				for b.Loop() {
					n = ix.cat.Allowed(catalogQuery(base)).GetCardinality()
				}
				b.ReportMetric(float64(n), "allowed")
			})
			b.Run(c.name+"/"+v.name+"/prefilter-only/terms", func(b *testing.B) {
				// The term prefilter alone: Bleve's filter-only search of
				// the access and filter terms (what CountReadable ran).
				b.ReportAllocs()
				var n uint64
				for b.Loop() {
					n = termsCount(b, ix, base)
				}
				b.ReportMetric(float64(n), "allowed")
			})
			for _, pv := range []struct {
				name                string
				terms, global, pool bool
				or, prefix          bool
			}{
				{name: "search-prefix/catalog", prefix: true}, {name: "search-prefix/catalog-pool", pool: true, prefix: true},
				{name: "search/catalog"}, {name: "search/catalog-pool", pool: true}, {name: "search/catalog-globalstats", global: true, pool: true}, {name: "search/terms", terms: true},
				{name: "search-or/catalog", or: true}, {name: "search-or/catalog-pool", pool: true, or: true}, {name: "search-or/catalog-globalstats", global: true, pool: true, or: true},
			} {
				b.Run(c.name+"/"+v.name+"/"+pv.name, func(b *testing.B) {
					b.ReportAllocs()
					var lat []time.Duration
					hits := 0
					i := 0
					for b.Loop() {
						q := base
						q.Text, q.TermPrefilter, q.GlobalStats, q.PoolSelection = qs[i%len(qs)], pv.terms, pv.global, pv.pool
						if pv.prefix {
							// The first four letters of the first word: a
							// prefix query (units.go; catalog-pool is
							// Bleve's own prefix score, before).
							q.Mode, q.Text = "prefix", qs[i%len(qs)][:4]
						}
						if pv.or {
							// Four words ORed: the term-pruning path (the
							// full-text leg of hybrid search).
							q.Mode = "boolean"
							q.Text = strings.Join(strings.Fields(qs[i%len(qs)]+" "+qs[(i+1)%len(qs)]), " OR ")
						}
						i++
						began := time.Now()
						res, err := ix.Search(ctx, q)
						lat = append(lat, time.Since(began))
						if err != nil {
							b.Fatal(err)
						}
						hits += len(res.Hits)
					}
					slices.Sort(lat)
					b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "median-µs")
					b.ReportMetric(float64(lat[min(len(lat)-1, len(lat)*99/100)].Microseconds()), "p99-µs")
					b.ReportMetric(float64(hits)/float64(len(lat)), "hits")
				})
			}
		}
	}
}

// termsCount runs the term prefilter alone.
func termsCount(b *testing.B, ix *Index, q Query) uint64 {
	bq := bleve.NewBooleanQuery()
	bq.AddMust(bleve.NewMatchAllQuery())
	bq.AddFilter(allowed(q))
	sr, err := ix.bi.Search(bleve.NewSearchRequestOptions(bq, 0, 0, false))
	if err != nil {
		b.Fatal(err)
	}
	return sr.Total
}

type prefilterCase struct {
	name   string
	acc    Access
	thread string // the thread of one of the granted entries
}

var prefilterBench struct {
	ix    *Index
	cases []prefilterCase
	qs    []string
}

func prefilterBenchIndex(b *testing.B) (*Index, []prefilterCase, []string) {
	if prefilterBench.ix != nil {
		return prefilterBench.ix, prefilterBench.cases, prefilterBench.qs
	}
	const n = 100_000
	texts, err := goDocCorpus(n)
	if err != nil {
		b.Skip(err)
	}
	r := rand.New(rand.NewPCG(42, 42))
	docs := make([]Doc, n)
	for i := range docs {
		d := Doc{ID: fmt.Sprintf("%032x", i+1), Text: texts[i], Owner: fmt.Sprintf("u%d", r.IntN(1000)), Public: r.IntN(10) == 0,
			ThreadID: fmt.Sprintf("t%d", r.IntN(5000)), Source: "agent", ContentType: "text",
			Tags: []string{fmt.Sprintf("tag%d", r.IntN(50))}, CreatedAt: t0.Add(time.Duration(i) * time.Second)}
		for range r.IntN(3) {
			if r.IntN(2) == 0 {
				d.Readers = append(d.Readers, fmt.Sprintf("u:u%d", r.IntN(1000)))
			} else {
				d.Readers = append(d.Readers, fmt.Sprintf("g:g%d", r.IntN(200)))
			}
		}
		docs[i] = d
	}
	// Every entry is also readable by the group "everyone": the
	// reads-everything case, whose readable set is the whole index.
	for i := range docs {
		docs[i].Readers = append(docs[i].Readers, "g:everyone")
	}
	cases := []prefilterCase{{"reads-everything", Access{Principal: "me-all", Groups: []string{"everyone"}}, docs[0].ThreadID}}
	for _, c := range []struct {
		grants    int
		allGroups bool
	}{{1, false}, {100, false}, {10_000, false}, {10_000, true}} {
		name := fmt.Sprintf("grants=%d", c.grants)
		if c.allGroups {
			name += "-groups=10000"
		}
		p := "me-" + name
		acc := Access{Principal: p}
		var thread string
		for k, e := range r.Perm(n)[:c.grants] {
			if k == 0 {
				thread = docs[e].ThreadID
			}
			if c.allGroups || k%2 == 1 {
				g := fmt.Sprintf("%s-g%d", p, k)
				docs[e].Readers = append(docs[e].Readers, "g:"+g)
				acc.Groups = append(acc.Groups, g)
			} else {
				docs[e].Readers = append(docs[e].Readers, "u:"+p)
			}
		}
		// The principal also belongs to a few of the shared groups.
		acc.Groups = append(acc.Groups, "g1", "g2")
		cases = append(cases, prefilterCase{name, acc, thread})
	}
	ix, err := Open(Options{})
	if err != nil {
		b.Fatal(err)
	}
	began := time.Now()
	for i := 0; i < n; i += 1000 {
		if err := ix.Apply(context.Background(), docs[i:i+1000], nil, int64(i/1000+1)); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("indexed %d entries in %s", n, time.Since(began).Round(time.Millisecond))
	// Match queries drawn from the corpus with a fixed seed (two words of
	// five or more letters, as BenchmarkFTS).
	var qs []string
	for len(qs) < 40 {
		words := strings.FieldsFunc(texts[r.IntN(n)], func(c rune) bool { return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') })
		var long []string
		for _, w := range words {
			if len(w) >= 5 {
				long = append(long, strings.ToLower(w))
			}
		}
		if len(long) >= 2 {
			qs = append(qs, long[0]+" "+long[1])
		}
	}
	// Both prefilters rank the same hits (the cheap cases; the oracle test
	// is TestPrefilterMatchesTerms).
	for _, c := range cases[:3] {
		for _, th := range []string{"", c.thread} {
			for _, text := range qs {
				q := Query{Text: text, Mode: "match", Access: c.acc, Size: 100, ThreadID: th}
				a, err := ix.Search(context.Background(), q)
				if err != nil {
					b.Fatal(err)
				}
				q.TermPrefilter = true
				t, err := ix.Search(context.Background(), q)
				if err != nil {
					b.Fatal(err)
				}
				if ids(a) != ids(t) {
					b.Fatalf("%s %q: catalog %s, terms %s", c.name, text, ids(a), ids(t))
				}
			}
		}
	}
	prefilterBench.ix, prefilterBench.cases, prefilterBench.qs = ix, cases, qs
	return ix, cases, qs
}

// goDocCorpus is the module's benchmark corpus (internal/testcorpus): the
// paragraphs of at least six words of the doc comments of $GOROOT/src.
func goDocCorpus(max int) ([]string, error) { return testcorpus.Paragraphs(max) }
