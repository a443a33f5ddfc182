package catalog

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"testing"
)

// statsOracle computes Stats of q over live directly from the entries.
func statsOracle(live map[string]Entry, q Query, topThreads, topTags int) Stats {
	st := Stats{BySource: map[string]int{}, ByContentType: map[string]int{}}
	threads, tags := map[string]int{}, map[string]int{}
	for _, e := range live {
		if !oracle(e, q) {
			continue
		}
		st.Total++
		st.BySource[e.Source]++
		st.ByContentType[e.ContentType]++
		if e.Summarized {
			st.Summarized++
		}
		st.Images += e.Images
		st.Nodes += e.Nodes
		threads[e.ThreadID]++
		seen := map[string]bool{}
		for _, t := range e.Tags {
			if !seen[t] {
				seen[t] = true
				tags[t]++
			}
		}
	}
	rank := func(m map[string]int, n int) []NameCount {
		out := []NameCount{}
		for k, v := range m {
			out = append(out, NameCount{k, v})
		}
		slices.SortFunc(out, func(a, b NameCount) int { return cmp.Or(b.Count-a.Count, cmp.Compare(a.Name, b.Name)) })
		return out[:min(n, len(out))]
	}
	st.Threads, st.TopThreads = len(threads), rank(threads, topThreads)
	st.Tags, st.TopTags = len(tags), rank(tags, topTags)
	return st
}

// TestStatsOracle: Stats agrees with the entries themselves through
// inserts, replacements (a summary or images gained or lost) and removes,
// for random callers and filters, and after a snapshot round trip.
func TestStatsOracle(t *testing.T) {
	u := newUniverse(5)
	c := New()
	live := map[string]Entry{}
	var ids []string
	entry := func(id string) Entry {
		e := u.entry(id)
		e.Summarized = u.r.IntN(3) == 0
		if e.ContentType == "multimodal" {
			e.Images = 1 + u.r.IntN(3)
		}
		if u.r.IntN(4) == 0 {
			e.Nodes = u.r.IntN(5)
		}
		return e
	}
	checks := 0
	for round := range 60 {
		for range 20 {
			switch k := u.r.IntN(10); {
			case k < 6 || len(ids) == 0:
				id := fmt.Sprintf("e%04d", len(ids)+round*1000)
				e := entry(id)
				c.Put(e)
				live[id], ids = e, append(ids, id)
			case k < 8:
				id := ids[u.r.IntN(len(ids))]
				if _, ok := live[id]; ok {
					e := entry(id)
					c.Put(e)
					live[id] = e
				}
			default:
				id := ids[u.r.IntN(len(ids))]
				c.Remove(id)
				delete(live, id)
			}
		}
		cats := []*Catalog{c}
		if round%10 == 9 {
			d, err := Decode(c.Encode(nil))
			if err != nil {
				t.Fatal(err)
			}
			cats = append(cats, d)
		}
		for range 10 {
			q := u.query(ids)
			q.IDs = nil
			nt, ng := 1+u.r.IntN(5), 1+u.r.IntN(10)
			want := statsOracle(live, q, nt, ng)
			for i, cat := range cats {
				if got := cat.Stats(q, nt, ng); !reflect.DeepEqual(got, want) {
					t.Fatalf("round %d catalog %d query %+v:\ngot  %+v\nwant %+v", round, i, q, got, want)
				}
				checks++
			}
		}
	}
	t.Logf("%d checks over %d live entries", checks, len(live))
}
