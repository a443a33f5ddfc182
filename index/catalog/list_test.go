package catalog

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// TestListOracle: List equals the naive answer (every allowed ordinal
// tested against every condition, sorted newest first, then paged) over
// thousands of entries spread over several blocks, in and out of arrival
// order, with equal creation times, across replacements and removals.
func TestListOracle(t *testing.T) {
	u := newUniverse(11)
	c := NewMeta()
	const n = 5000
	metas := []string{`{"status":"active","p":1}`, `{"status":"Done","p":7}`, `{"status":"blocked","p":2.5}`, `{"p":"x"}`, ``, `{"status":null}`}
	put := func(i int) {
		e := u.entry(fmt.Sprintf("e%05d", i))
		if u.r.IntN(3) > 0 {
			// Mostly arrival order, as the store writes them.
			e.CreatedAt = u.base.Add(time.Duration(i/3) * time.Second)
		}
		if m := metas[u.r.IntN(len(metas))]; m != "" {
			e.Metadata = []byte(m)
		}
		c.Put(e)
	}
	for i := range n {
		put(i)
	}
	conds := [][]MetaCond{nil,
		{{Path: []string{"status"}, Op: "eq", Value: "done"}},
		{{Path: []string{"status"}, Op: "eq", Value: "blocked", CaseSensitive: true}},
		{{Path: []string{"p"}, Op: "gte", Value: int64(2)}},
		{{Path: []string{"status"}, Op: "not_exists"}},
		{{Path: []string{"p"}, Op: "lt", Value: 2.5}, {Path: []string{"status"}, Op: "starts_with", Value: "A"}},
	}
	naive := func(q Query, meta []MetaCond, offset, limit int) []string {
		var ords []uint32
		b := c.Allowed(q)
		for _, o := range b.ToArray() {
			ok := true
			for _, mc := range meta {
				p, err := compile(mc)
				if err != nil {
					t.Fatal(err)
				}
				col := c.meta[pathKey(mc.Path)]
				if col == nil {
					col = &column{}
				}
				ok = ok && p(col, o, col.get(o))
			}
			if ok {
				ords = append(ords, o)
			}
		}
		slices.SortFunc(ords, func(a, b uint32) int {
			if c.newer(a, b) {
				return -1
			}
			return 1
		})
		out := []string{}
		for i, o := range ords {
			if i >= offset && (limit <= 0 || i < offset+limit) {
				out = append(out, c.slots[o].id)
			}
		}
		return out
	}
	for round := range 4 {
		for i := range 300 {
			q := u.query(nil)
			q.IDs = nil
			meta := conds[u.r.IntN(len(conds))]
			offset, limit := u.r.IntN(40), u.r.IntN(60)
			got, err := c.List(q, meta, offset, limit)
			if err != nil {
				t.Fatal(err)
			}
			if want := naive(q, meta, offset, limit); !slices.Equal(got, want) {
				t.Fatalf("round %d query %d (%+v, %+v, %d, %d): got %v, want %v", round, i, q, meta, offset, limit, got, want)
			}
		}
		for range 500 {
			i := u.r.IntN(n)
			if u.r.IntN(2) == 0 {
				c.Remove(fmt.Sprintf("e%05d", i))
			} else {
				put(i)
			}
		}
	}
}

// TestListUnserved: metadata the columns cannot model exactly turns
// metadata conditions over to the caller (ErrMetaUnserved) until the
// entry goes; a catalog without metadata never serves them.
func TestListUnserved(t *testing.T) {
	c := NewMeta()
	cond := []MetaCond{{Path: []string{"a"}, Op: "exists"}}
	c.Put(Entry{ID: "1", Owner: "o", Metadata: []byte(`{"a":1}`)})
	if ids, err := c.List(Query{Principal: "o"}, cond, 0, 10); err != nil || !slices.Equal(ids, []string{"1"}) {
		t.Fatalf("served: %v %v", ids, err)
	}
	for _, m := range []string{`{"a":1,"a":2}`, `{"a":"x\u0000"}`, `{"a":123456789012345678901}`, `[1]`, `{"a":`} {
		c.Put(Entry{ID: "2", Owner: "o", Metadata: []byte(m)})
		if _, err := c.List(Query{Principal: "o"}, cond, 0, 10); err != ErrMetaUnserved {
			t.Fatalf("%s: err %v, want ErrMetaUnserved", m, err)
		}
		if _, err := c.List(Query{Principal: "o"}, nil, 0, 10); err != nil {
			t.Fatalf("%s: no conditions: %v", m, err)
		}
	}
	c.Remove("2")
	if _, err := c.List(Query{Principal: "o"}, cond, 0, 10); err != nil {
		t.Fatalf("after removal: %v", err)
	}
	if _, err := New().List(Query{}, cond, 0, 10); err != ErrMetaUnserved {
		t.Fatalf("catalog without metadata: %v", err)
	}
}

// FuzzFlatten: any metadata bytes are either flattened or refused, never
// a panic, and a served object's top-level keys are all columns.
func FuzzFlatten(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"a":{"b":[1,"x",{"c":null}]}}`, `{"a":1.5e3,"b":true,"c":false}`, `null`, `{"a":"\u00e9"}`, `{`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, meta []byte) {
		c := NewMeta()
		c.Put(Entry{ID: "x", Owner: "o", Metadata: meta})
		c.Put(Entry{ID: "x", Owner: "o", Metadata: meta})
		c.Remove("x")
		if len(c.meta) != 0 || c.unserved != 0 {
			t.Fatalf("after removal: %d columns, %d unserved", len(c.meta), c.unserved)
		}
	})
}

// TestListAfterSnapshot: a catalog snapshot carries no metadata columns,
// so a metadata catalog replaced by a decoded one refuses metadata
// conditions (SQL answers them) instead of missing matches, serves the
// rest, including dates through the rebuilt block bounds, and serves
// metadata again once every entry was written anew.
func TestListAfterSnapshot(t *testing.T) {
	c := NewMeta()
	cond := []MetaCond{{Path: []string{"a"}, Op: "exists"}}
	at := time.Unix(1_700_000_000, 0)
	for i, id := range []string{"1", "2"} {
		c.Put(Entry{ID: id, Owner: "o", CreatedAt: at.Add(time.Duration(i) * time.Hour), Metadata: []byte(`{"a":1}`)})
	}
	d, err := Decode(c.Encode(nil))
	if err != nil {
		t.Fatal(err)
	}
	r := NewMeta()
	r.Replace(d)
	if _, err := r.List(Query{Principal: "o"}, cond, 0, 10); err != ErrMetaUnserved {
		t.Fatalf("metadata condition after a snapshot: err %v, want ErrMetaUnserved", err)
	}
	start := at.Add(30 * time.Minute)
	if ids, err := r.List(Query{Principal: "o", Start: &start}, nil, 0, 10); err != nil || !slices.Equal(ids, []string{"2"}) {
		t.Fatalf("date window after a snapshot: %v %v", ids, err)
	}
	for _, id := range []string{"1", "2"} {
		r.Put(Entry{ID: id, Owner: "o", CreatedAt: at, Metadata: []byte(`{"a":1}`)})
	}
	if ids, err := r.List(Query{Principal: "o"}, cond, 0, 10); err != nil || len(ids) != 2 {
		t.Fatalf("after rewriting every entry: %v %v", ids, err)
	}
}
