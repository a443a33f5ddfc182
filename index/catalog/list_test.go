package catalog

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestListOracle: List equals the naive answer (every allowed ordinal
// tested against every condition, sorted newest first, then paged) over
// thousands of entries spread over several blocks, in and out of arrival
// order, with equal creation times, with keyset positions, across
// replacements and removals.
// listID is entry i's id: a third in the server's form (kept packed,
// ids.go), a third of the same length but not hex, a third short, so the
// order of ids is tested across the forms.
func listID(i int) string {
	switch i % 3 {
	case 0:
		return fmt.Sprintf("%032x", i*7919)
	case 1:
		return fmt.Sprintf("%031xz", i)
	}
	return fmt.Sprintf("e%05d", i)
}

func TestListOracle(t *testing.T) {
	u := newUniverse(11)
	c := NewMeta()
	const n = 5000
	metas := []string{`{"status":"active","p":1}`, `{"status":"Done","p":7}`, `{"status":"blocked","p":2.5}`, `{"p":"x"}`, ``, `{"status":null}`}
	put := func(i int) {
		e := u.entry(listID(i))
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
			if p := q.Before; p != nil {
				at, id := c.created[o], c.slots[o].text()
				ok = ok && (at < p.CreatedAt.UnixMicro() || at == p.CreatedAt.UnixMicro() && id < p.ID)
			}
			if ok {
				ords = append(ords, o)
			}
		}
		slices.SortFunc(ords, func(a, b uint32) int { // newest first, ties by id text
			return cmp.Or(cmp.Compare(c.created[b], c.created[a]), strings.Compare(c.slots[b].text(), c.slots[a].text()))
		})
		out := []string{}
		for i, o := range ords {
			if i >= offset && (limit <= 0 || i < offset+limit) {
				out = append(out, c.slots[o].text())
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
			if u.r.IntN(2) == 0 {
				// Keyset paging from a place that is often an entry's own
				// (ties on the creation time decided by the id).
				at := u.base.Add(time.Duration(u.r.IntN(n/2)) * time.Second)
				id := listID(u.r.IntN(n))
				if o, ok := c.Ordinal(id); ok && u.r.IntN(2) == 0 {
					at = time.UnixMicro(c.created[o])
				}
				q.Before = &Position{CreatedAt: at, ID: id}
			}
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
				c.Remove(listID(i))
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

// TestListAfterSnapshot: a metadata catalog read back from its snapshot
// answers every metadata condition as the catalog it was written from
// (random metadata of every JSON kind, arrays and nested objects, an
// unserved entry, removals; every operator), keeps serving after later
// writes, and a snapshot of a catalog without metadata leaves a metadata
// catalog's entries unserved (SQL answers) rather than missing matches.
func TestListAfterSnapshot(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	strs := []string{"a", "B", "ab", "abc", "Zed", "é", ""}
	val := func() string {
		switch r.IntN(7) {
		case 0:
			return strconv.Itoa(r.IntN(20) - 5)
		case 1:
			return strconv.FormatFloat(float64(r.IntN(40))/4-3, 'g', -1, 64)
		case 2:
			return strconv.Quote(strs[r.IntN(len(strs))])
		case 3:
			return []string{"true", "false", "null"}[r.IntN(3)]
		case 4:
			return `[1,"a",2.5,true]`
		case 5:
			return `{"k":` + strconv.Itoa(r.IntN(3)) + `}`
		}
		return `[` + strconv.Quote(strs[r.IntN(len(strs))]) + `]`
	}
	at := time.Unix(1_700_000_000, 0)
	c := NewMeta()
	for i := range 400 {
		m := "{"
		for j, k := range []string{"p", "q", "r"} {
			if r.IntN(3) > 0 {
				if j > 0 && m != "{" {
					m += ","
				}
				m += strconv.Quote(k) + ":" + val()
			}
		}
		m += "}"
		if i == 7 {
			m = `{"p":1,"p":2}` // duplicate key: unserved
		}
		c.Put(Entry{ID: fmt.Sprint(i), Owner: "o", CreatedAt: at.Add(time.Duration(i) * time.Second), Metadata: []byte(m)})
	}
	for i := 0; i < 400; i += 9 {
		c.Remove(fmt.Sprint(i)) // also the unserved 7... not: 7 stays
	}
	d, err := Decode(c.Encode(nil))
	if err != nil {
		t.Fatal(err)
	}
	back := NewMeta()
	back.Replace(d)
	ops := []string{"eq", "ne", "gt", "gte", "lt", "lte", "in", "not_in", "exists", "is_not_null", "not_exists", "is_null", "contains", "starts_with", "ends_with", "array_contains"}
	values := []any{int64(1), int64(-2), 2.5, "a", "ab", "b", true, false}
	check := func(want, got *Catalog) {
		t.Helper()
		for _, op := range ops {
			for _, path := range [][]string{{"p"}, {"q"}, {"r", "k"}} {
				v := values[r.IntN(len(values))]
				cond := []MetaCond{{Path: path, Op: op, Value: v, Values: []any{v, "abc"}, CaseSensitive: r.IntN(2) == 0}}
				w, werr := want.List(Query{Principal: "o"}, cond, 0, 0)
				g, gerr := got.List(Query{Principal: "o"}, cond, 0, 0)
				if !slices.Equal(w, g) || (werr == nil) != (gerr == nil) {
					t.Fatalf("%s %v %v: %v (%v) from the snapshot, %v (%v) from the original", op, path, v, g, gerr, w, werr)
				}
			}
		}
	}
	c.Remove("7") // both without the unserved entry: conditions are served
	back.Remove("7")
	check(c, back)
	if _, err := back.List(Query{Principal: "o"}, []MetaCond{{Path: []string{"p"}, Op: "exists"}}, 0, 1); err != nil {
		t.Fatalf("served after the round trip: %v", err)
	}
	for i := range 50 { // later writes land in the decoded columns
		m := []byte(`{"p":` + val() + `}`)
		c.Put(Entry{ID: fmt.Sprint(i * 3), Owner: "o", CreatedAt: at, Metadata: m})
		back.Put(Entry{ID: fmt.Sprint(i * 3), Owner: "o", CreatedAt: at, Metadata: m})
	}
	check(c, back)

	plain := New()
	plain.Put(Entry{ID: "1", Owner: "o", CreatedAt: at})
	d, err = Decode(plain.Encode(nil))
	if err != nil {
		t.Fatal(err)
	}
	m := NewMeta()
	m.Replace(d)
	if _, err := m.List(Query{Principal: "o"}, []MetaCond{{Path: []string{"a"}, Op: "exists"}}, 0, 10); err != ErrMetaUnserved {
		t.Fatalf("a snapshot without metadata: err %v, want ErrMetaUnserved", err)
	}
}
