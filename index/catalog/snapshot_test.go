package catalog

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/contextd/contextd/index/snapfmt"
)

// randomCatalog builds a catalog through a random history of inserts,
// replacements and removes (so it has free ordinals) and returns it with
// its live entries and every id it ever held.
func randomCatalog(u *universe, ops int) (*Catalog, map[string]Entry, []string) {
	c := New()
	live := map[string]Entry{}
	var ids []string
	for i := range ops {
		switch k := u.r.IntN(10); {
		case k < 6 || len(ids) == 0:
			id := fmt.Sprintf("e%05d", i)
			e := u.entry(id)
			e.Length = uint32(u.r.IntN(500))
			c.Put(e)
			live[id] = e
			ids = append(ids, id)
		case k < 8:
			id := ids[u.r.IntN(len(ids))]
			if _, ok := live[id]; ok {
				e := u.entry(id)
				c.Put(e)
				live[id] = e
			}
		default:
			id := ids[u.r.IntN(len(ids))]
			c.Remove(id)
			delete(live, id)
		}
	}
	// A last wave of removes leaves free ordinals behind.
	for i, id := range ids {
		if _, ok := live[id]; ok && i%7 == 0 {
			c.Remove(id)
			delete(live, id)
		}
	}
	return c, live, ids
}

// TestSnapshotOracle: a decoded catalog answers every query as the
// predicates do and as the catalog it was encoded from, keeps every
// ordinal and the token totals, and goes on handing out the same
// ordinals as the original under the same later changes.
func TestSnapshotOracle(t *testing.T) {
	u := newUniverse(7)
	orig, live, ids := randomCatalog(u, 3000)
	if len(orig.free) == 0 {
		t.Fatal("the history left no free ordinals to keep")
	}
	got, err := Decode(orig.Encode(nil))
	if err != nil {
		t.Fatal(err)
	}
	if got.Len() != orig.Len() || got.Tokens(nil) != orig.Tokens(nil) {
		t.Fatalf("decoded: %d entries %d tokens, want %d and %d", got.Len(), got.Tokens(nil), orig.Len(), orig.Tokens(nil))
	}
	for _, id := range ids {
		a, aok := orig.Ordinal(id)
		b, bok := got.Ordinal(id)
		if a != b || aok != bok {
			t.Fatalf("%s: ordinal %d,%v decoded as %d,%v", id, a, aok, b, bok)
		}
	}
	for range 300 {
		q := u.query(ids)
		check(t, got, live, q)
		if a, b := orig.Allowed(q), got.Allowed(q); !a.Equals(b) {
			t.Fatalf("query %+v: decoded allows %v, original %v", q, b, a)
		}
		if a, b := orig.Tokens(orig.Allowed(q)), got.Tokens(got.Allowed(q)); a != b {
			t.Fatalf("query %+v: tokens %d, want %d", q, b, a)
		}
	}
	// The same later history gives the same ordinals (free list order).
	for i := range 200 {
		var e Entry
		if i%3 == 0 {
			id := ids[u.r.IntN(len(ids))]
			if orig.Remove(id) != got.Remove(id) {
				t.Fatalf("Remove(%s) differs", id)
			}
			delete(live, id)
			continue
		}
		e = u.entry(fmt.Sprintf("n%04d", i))
		if a, b := orig.Put(e), got.Put(e); a != b {
			t.Fatalf("Put %s: ordinal %d, original %d", e.ID, b, a)
		}
		live[e.ID] = e
		ids = append(ids, e.ID)
	}
	for range 100 {
		check(t, got, live, u.query(ids))
	}
	// Encoding is deterministic: a decoded catalog encodes to the same bytes.
	again, err := Decode(got.Encode(nil))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.Encode(nil), got.Encode(nil)) {
		t.Fatal("re-encoding a decoded catalog changed it")
	}
	empty, err := Decode(New().Encode(nil))
	if err != nil || empty.Len() != 0 || !empty.Allowed(Query{Principal: "x"}).IsEmpty() {
		t.Fatalf("empty catalog: %v", err)
	}
}

// TestSnapshotDamage: every truncation and every flipped byte of a
// snapshot is refused with ErrCorrupt, never decoded into another catalog.
func TestSnapshotDamage(t *testing.T) {
	c, _, _ := randomCatalog(newUniverse(3), 60)
	data := c.Encode(nil)
	for n := range len(data) {
		if _, err := Decode(data[:n]); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("truncated to %d bytes: %v", n, err)
		}
	}
	for i := range data {
		bad := bytes.Clone(data)
		bad[i] ^= 0x5a
		if _, err := Decode(bad); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("byte %d flipped: %v", i, err)
		}
	}
}

// FuzzDecode: no input makes Decode panic or allocate past its size, and
// what it accepts re-encodes to a snapshot that decodes to the same bytes.
func FuzzDecode(f *testing.F) {
	c, _, _ := randomCatalog(newUniverse(5), 40)
	f.Add(c.Encode(nil))
	f.Add(New().Encode(nil))
	f.Add([]byte(catalogMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		// The checksum hides the decoder from random bytes; fuzz it with
		// a valid checksum over whatever the body is.
		for _, in := range [][]byte{data, snapfmt.Reseal(data)} {
			got, err := Decode(in)
			if err != nil {
				if !errors.Is(err, ErrCorrupt) {
					t.Fatalf("error %v does not wrap ErrCorrupt", err)
				}
				continue
			}
			enc := got.Encode(nil)
			again, err := Decode(enc)
			if err != nil {
				t.Fatalf("re-encoded snapshot refused: %v", err)
			}
			if !bytes.Equal(again.Encode(nil), enc) {
				t.Fatal("re-encoding is not stable")
			}
		}
	})
}

// BenchmarkDecode is the start-up cost of a catalog read from its
// snapshot, against BenchmarkPutAll (the same catalog put entry by entry,
// which a load from SQL does after its scan).
func BenchmarkDecode(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		c := New()
		for i := range n {
			c.Put(scanned(i))
		}
		data := c.Encode(nil)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := Decode(data); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("encode/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			buf := make([]byte, 0, len(data))
			for b.Loop() {
				buf = c.Encode(buf[:0])
			}
		})
	}
}

func BenchmarkPutAll(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		ents := make([]Entry, n)
		for i := range ents {
			ents[i] = scanned(i)
		}
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c := New()
				for _, e := range ents {
					c.Put(e)
				}
			}
		})
	}
}
