package catalog

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/contextd/contextd/internal/testtier"
)

// universe is a small random world: few principals, groups and values so
// that grants, filters and memberships overlap often.
type universe struct {
	r       *rand.Rand
	users   []string
	groups  []string
	threads []string
	tags    []string
	base    time.Time
}

func newUniverse(seed uint64) *universe {
	u := &universe{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), base: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	for i := range 8 {
		u.users = append(u.users, fmt.Sprintf("user%d", i))
	}
	for i := range 6 {
		u.groups = append(u.groups, fmt.Sprintf("grp%d", i))
	}
	for i := range 5 {
		u.threads = append(u.threads, fmt.Sprintf("t%d", i))
	}
	for i := range 6 {
		u.tags = append(u.tags, fmt.Sprintf("tag%d", i))
	}
	return u
}

func (u *universe) pick(s []string) string { return s[u.r.IntN(len(s))] }

func (u *universe) entry(id string) Entry {
	e := Entry{
		ID: id, Owner: u.pick(u.users), Public: u.r.IntN(5) == 0,
		ThreadID: u.pick(u.threads), Source: []string{"user", "agent"}[u.r.IntN(2)],
		ContentType: []string{"text", "multimodal"}[u.r.IntN(2)],
		// Sub-microsecond offsets exercise the rounding of a start bound.
		CreatedAt: u.base.Add(time.Duration(u.r.IntN(1000)) * time.Minute).Truncate(time.Microsecond),
	}
	for range u.r.IntN(4) {
		if u.r.IntN(2) == 0 {
			e.Readers = append(e.Readers, "u:"+u.pick(u.users))
		} else {
			e.Readers = append(e.Readers, "g:"+u.pick(u.groups))
		}
	}
	for range u.r.IntN(3) {
		e.Tags = append(e.Tags, u.pick(u.tags))
	}
	return e
}

func (u *universe) query(ids []string) Query {
	q := Query{Principal: u.pick(u.users)}
	for _, g := range u.groups {
		if u.r.IntN(4) == 0 {
			q.Groups = append(q.Groups, g)
		}
	}
	if u.r.IntN(3) == 0 {
		q.ThreadID = u.pick(u.threads)
		if u.r.IntN(10) == 0 {
			q.ThreadID = "nope"
		}
	}
	if u.r.IntN(4) == 0 {
		q.Source = []string{"user", "agent"}[u.r.IntN(2)]
	}
	if u.r.IntN(4) == 0 {
		q.ContentType = []string{"text", "multimodal", "other"}[u.r.IntN(3)]
	}
	if u.r.IntN(3) == 0 {
		q.Tags = []string{}
		for range 1 + u.r.IntN(3) {
			q.Tags = append(q.Tags, u.pick(u.tags))
		}
		if u.r.IntN(8) == 0 {
			q.Tags = []string{"missing"}
		}
	}
	if u.r.IntN(3) == 0 {
		s := u.base.Add(time.Duration(u.r.IntN(1000))*time.Minute - time.Duration(u.r.IntN(2))*time.Nanosecond)
		q.Start = &s
	}
	if u.r.IntN(3) == 0 {
		e := u.base.Add(time.Duration(u.r.IntN(1000)) * time.Minute)
		q.End = &e
	}
	if u.r.IntN(5) == 0 && len(ids) > 0 {
		q.IDs = []string{}
		for range u.r.IntN(20) {
			q.IDs = append(q.IDs, ids[u.r.IntN(len(ids))])
		}
		if u.r.IntN(4) == 0 {
			q.IDs = append(q.IDs, "absent")
		}
	}
	return q
}

// oracle evaluates q on e directly from the predicates.
func oracle(e Entry, q Query) bool {
	read := e.Public || e.Owner == q.Principal
	// Readers are "u:<user>" and "g:<group>"; compared without building
	// the strings, which took 70 % of TestAllowedManyGroups.
	for _, r := range e.Readers {
		if user, ok := strings.CutPrefix(r, "u:"); ok && user == q.Principal {
			read = true
		}
		if group, ok := strings.CutPrefix(r, "g:"); ok && slices.Contains(q.Groups, group) {
			read = true
		}
	}
	if !read {
		return false
	}
	if q.ThreadID != "" && e.ThreadID != q.ThreadID {
		return false
	}
	if q.Source != "" && e.Source != q.Source {
		return false
	}
	if q.ContentType != "" && e.ContentType != q.ContentType {
		return false
	}
	if q.Tags != nil {
		hit := false
		for _, t := range e.Tags {
			hit = hit || slices.Contains(q.Tags, t)
		}
		if !hit {
			return false
		}
	}
	if q.Start != nil && e.CreatedAt.Before(*q.Start) {
		return false
	}
	if q.End != nil && e.CreatedAt.After(*q.End) {
		return false
	}
	if q.IDs != nil && !slices.Contains(q.IDs, e.ID) {
		return false
	}
	return true
}

// check compares Allowed with the oracle over every live entry; it returns
// the number of (entry, query) decisions compared.
func check(t *testing.T, c *Catalog, live map[string]Entry, q Query) int {
	t.Helper()
	got := c.Allowed(q)
	want := 0
	for id, e := range live {
		ord, ok := c.Ordinal(id)
		if !ok {
			t.Fatalf("live %s has no ordinal", id)
		}
		if back, _ := c.ID(ord); back != id {
			t.Fatalf("ID(Ordinal(%s)) = %s", id, back)
		}
		w := oracle(e, q)
		if w {
			want++
		}
		if got.Contains(ord) != w {
			t.Fatalf("entry %+v query %+v: allowed=%v, predicates say %v", e, q, !w, w)
		}
	}
	if int(got.GetCardinality()) != want {
		t.Fatalf("query %+v: %d allowed, predicates allow %d (stale ordinals?)", q, got.GetCardinality(), want)
	}
	return len(live)
}

func TestAllowedOracle(t *testing.T) {
	u := newUniverse(1)
	c := New()
	live := map[string]Entry{}
	var ids []string
	checks := 0
	for round := range 200 {
		// Mutate: inserts, replacements (new grants, new fields), removes.
		for range 20 {
			switch k := u.r.IntN(10); {
			case k < 6 || len(ids) == 0:
				id := fmt.Sprintf("e%04d", len(ids)+round*1000)
				e := u.entry(id)
				c.Put(e)
				live[id] = e
				ids = append(ids, id)
			case k < 8:
				id := ids[u.r.IntN(len(ids))]
				if _, ok := live[id]; !ok {
					continue
				}
				before, _ := c.Ordinal(id)
				e := u.entry(id)
				if got := c.Put(e); got != before {
					t.Fatalf("replace moved %s from %d to %d", id, before, got)
				}
				live[id] = e
			default:
				id := ids[u.r.IntN(len(ids))]
				_, was := live[id]
				if c.Remove(id) != was {
					t.Fatalf("Remove(%s) disagrees with liveness %v", id, was)
				}
				delete(live, id)
				if _, ok := c.Ordinal(id); ok {
					t.Fatalf("removed %s still has an ordinal", id)
				}
			}
		}
		if c.Len() != len(live) {
			t.Fatalf("Len %d, want %d", c.Len(), len(live))
		}
		for range 10 {
			checks += check(t, c, live, u.query(ids))
		}
	}
	if checks < 10000 {
		t.Fatalf("only %d checks", checks)
	}
	t.Logf("%d checks over %d live entries", checks, len(live))
}

// TestAllowedManyGroups covers the paths taken with many groups: group
// postings inline and as bitmaps, the dense union, small candidate sets.
func TestAllowedManyGroups(t *testing.T) {
	u := newUniverse(2)
	for i := range 1000 {
		u.groups = append(u.groups, fmt.Sprintf("many%d", i))
	}
	c := New()
	live := map[string]Entry{}
	var ids []string
	for i := range 3000 {
		id := fmt.Sprintf("e%d", i)
		e := u.entry(id)
		c.Put(e)
		live[id] = e
		ids = append(ids, id)
	}
	checks := 0
	for i := range testtier.RaceShare(300) {
		q := u.query(ids)
		q.Groups = nil
		n := []int{0, 3, 10, 50, 100, 600, 1006}[i%7]
		for _, j := range u.r.Perm(len(u.groups))[:n] {
			q.Groups = append(q.Groups, u.groups[j])
		}
		checks += check(t, c, live, q)
	}
	t.Logf("%d checks", checks)
}

func TestRemoveClearsEverything(t *testing.T) {
	c := New()
	at := time.Unix(100, 0)
	e := Entry{ID: "a", Owner: "o", Public: true, Readers: []string{"u:x", "g:y"}, ThreadID: "t", Source: "user", ContentType: "text", Tags: []string{"k"}, CreatedAt: at}
	ord := c.Put(e)
	for _, q := range []Query{{Principal: "o"}, {Principal: "x"}, {Principal: "z", Groups: []string{"y"}}, {Principal: "nobody"}} {
		if !c.Allowed(q).Contains(ord) {
			t.Fatalf("%+v cannot read", q)
		}
	}
	// Replace: private, no grants, other fields.
	c.Put(Entry{ID: "a", Owner: "o2", ThreadID: "t2", Source: "agent", ContentType: "multimodal", CreatedAt: at})
	for _, q := range []Query{{Principal: "o"}, {Principal: "x"}, {Principal: "z", Groups: []string{"y"}}, {Principal: "nobody"},
		{Principal: "o2", ThreadID: "t"}, {Principal: "o2", Tags: []string{"k"}}, {Principal: "o2", Source: "user"}} {
		if c.Allowed(q).Contains(ord) {
			t.Fatalf("%+v still reads after replace", q)
		}
	}
	if !c.Allowed(Query{Principal: "o2", ThreadID: "t2"}).Contains(ord) {
		t.Fatal("new owner cannot read")
	}
	if !c.Remove("a") || c.Remove("a") {
		t.Fatal("Remove results")
	}
	if !c.Allowed(Query{Principal: "o2"}).IsEmpty() || c.Len() != 0 {
		t.Fatal("removed entry still allowed")
	}
	if len(c.owner)+len(c.user)+len(c.group)+len(c.thread)+len(c.tag)+len(c.source)+len(c.ctype) != 0 || !c.public.IsEmpty() {
		t.Fatal("empty bitmaps left behind")
	}
	if _, ok := c.ID(ord); ok {
		t.Fatal("ID of a removed ordinal")
	}
	// The freed ordinal is reused.
	if got := c.Put(Entry{ID: "b", Owner: "o"}); got != ord {
		t.Fatalf("ordinal %d not reused (got %d)", ord, got)
	}
	if id, _ := c.ID(ord); id != "b" {
		t.Fatalf("ID(%d) = %s", ord, id)
	}
	c.Reset()
	if c.Len() != 0 || !c.Allowed(Query{Principal: "o"}).IsEmpty() {
		t.Fatal("Reset")
	}
}

func TestAllowedIsCallerOwned(t *testing.T) {
	c := New()
	c.Put(Entry{ID: "a", Owner: "o", Public: true})
	b := c.Allowed(Query{Principal: "x"})
	b.Add(99)
	b.Remove(0)
	if got := c.Allowed(Query{Principal: "x"}); got.GetCardinality() != 1 || !got.Contains(0) {
		t.Fatalf("catalog bitmap changed through a returned bitmap: %v", got.ToArray())
	}
}

func TestConcurrent(t *testing.T) {
	c := New()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			u := newUniverse(uint64(10 + w))
			for i := range 2000 {
				id := fmt.Sprintf("w%d-%d", w, i%300)
				switch i % 5 {
				case 4:
					c.Remove(id)
				default:
					c.Put(u.entry(id))
				}
			}
		}()
	}
	for r := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			u := newUniverse(uint64(20 + r))
			for range 1000 {
				b := c.Allowed(u.query([]string{"w0-1", "w1-2"}))
				it := b.Iterator()
				for it.HasNext() {
					c.ID(it.Next())
				}
				c.Len()
			}
		}()
	}
	wg.Wait()
}
