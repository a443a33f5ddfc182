package catalog

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/contextd/contextd/internal/testtier"
)

// benchCorpus is 100k entries owned by 1,000 users, 10% public, each with
// up to two grants to other users or groups, plus the grants of the
// benchmark principal "me": grants distinct entries, half to "me" directly
// and half to groups of "me" (one group per grant when groups is true,
// else all user grants).
func benchCorpus(grants int, allGroups bool) (*Catalog, Query) {
	r := rand.New(rand.NewPCG(42, 42))
	c := New()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const n = 100_000
	ents := make([]Entry, n)
	for i := range ents {
		e := Entry{
			ID: fmt.Sprintf("e%06d", i), Owner: fmt.Sprintf("u%d", r.IntN(1000)), Public: r.IntN(10) == 0,
			ThreadID: fmt.Sprintf("t%d", r.IntN(5000)), Source: []string{"user", "agent"}[r.IntN(2)], ContentType: "text",
			Tags: []string{fmt.Sprintf("tag%d", r.IntN(50))}, CreatedAt: base.Add(time.Duration(i) * time.Minute),
		}
		for range r.IntN(3) {
			if r.IntN(2) == 0 {
				e.Readers = append(e.Readers, fmt.Sprintf("u:u%d", r.IntN(1000)))
			} else {
				e.Readers = append(e.Readers, fmt.Sprintf("g:g%d", r.IntN(200)))
			}
		}
		ents[i] = e
	}
	q := Query{Principal: "me"}
	for i, k := range r.Perm(n)[:grants] {
		if allGroups || (i%2 == 1) {
			g := fmt.Sprintf("mg%d", i)
			ents[k].Readers = append(ents[k].Readers, "g:"+g)
			q.Groups = append(q.Groups, g)
		} else {
			ents[k].Readers = append(ents[k].Readers, "u:me")
		}
	}
	for _, e := range ents {
		c.Put(e)
	}
	return c, q
}

func BenchmarkAllowed(b *testing.B) {
	for _, tc := range []struct {
		name   string
		grants int
		groups bool
	}{
		{"grants=1", 1, false}, {"grants=100", 100, false}, {"grants=10000", 10000, false},
		{"grants=10000/groups=10000", 10000, true},
	} {
		c, q := benchCorpus(tc.grants, tc.groups)
		thread := q
		thread.ThreadID = "t7"
		dated := q
		s, e := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 2, 8, 0, 0, 0, 0, time.UTC)
		dated.Start, dated.End = &s, &e
		for _, v := range []struct {
			name string
			q    Query
		}{{"access", q}, {"access+thread", thread}, {"access+dates", dated}} {
			b.Run(tc.name+"/"+v.name, func(b *testing.B) {
				b.ReportAllocs()
				var card uint64
				stop := testtier.CPU(b) // CPU time: the shared machine's wall time is noisy
				for b.Loop() {
					card = c.Allowed(v.q).GetCardinality()
				}
				stop()
				b.ReportMetric(float64(card), "allowed")
			})
		}
	}
}

func BenchmarkPut(b *testing.B) {
	c, _ := benchCorpus(1, false)
	e := Entry{ID: "e000001", Owner: "u1", Readers: []string{"u:u2", "g:g3"}, ThreadID: "t1", Source: "user", ContentType: "text", Tags: []string{"tag1"}}
	b.ReportAllocs()
	for b.Loop() {
		c.Put(e)
	}
}
