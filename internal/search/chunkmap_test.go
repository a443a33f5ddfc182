package search

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/contextd/contextd/index/catalog"
	"github.com/contextd/contextd/index/snapfmt"
)

// TestChunkMapOracle: random sets and drops over reused ordinals (keys of
// 0-4 chunks, the key 0, ranges beyond uint32 and negative indexes)
// leave the chunk map answering exactly as two plain maps do, and its
// state snapshot reads back to the same answers.
func TestChunkMapOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	cat := catalog.New()
	m := newChunkMap(0, 0)
	refs := map[uint64]struct {
		ord uint32
		s   span
	}{}
	byOrd := map[uint32][]uint64{}
	live := map[string]uint32{}
	next := uint64(0)
	randSpan := func() span {
		switch r.IntN(8) {
		case 0:
			return span{index: -1 - r.IntN(3), start: 0, end: 3}
		case 1:
			return span{index: r.IntN(4), start: 1<<32 - 1, end: 1<<32 + r.IntN(9)}
		}
		s := r.IntN(5000)
		return span{index: r.IntN(4), start: s, end: s + r.IntN(1500)}
	}
	check := func(m *chunkMap) {
		t.Helper()
		if m.len() != len(refs) || m.entries != len(byOrd) {
			t.Fatalf("%d keys of %d entries, want %d of %d", m.len(), m.entries, len(refs), len(byOrd))
		}
		for k, want := range refs {
			ord, s, ok := m.ref(k)
			if !ok || ord != want.ord || s != want.s {
				t.Fatalf("ref(%d) = %d %+v %v, want %d %+v", k, ord, s, ok, want.ord, want.s)
			}
		}
		for ord := range uint32(len(m.first) + 2) {
			if got := m.keys(ord); !slices.Equal(got, byOrd[ord]) {
				t.Fatalf("keys(%d) = %v, want %v", ord, got, byOrd[ord])
			}
		}
		if len(m.wide) > len(refs) {
			t.Fatalf("%d wide ranges for %d keys", len(m.wide), len(refs))
		}
	}
	for step := range 4000 {
		id := fmt.Sprintf("e%d", r.IntN(300))
		if ord, ok := live[id]; ok && r.IntN(3) == 0 { // remove, as Apply does
			for _, k := range byOrd[ord] {
				delete(refs, k)
			}
			delete(byOrd, ord)
			m.drop(ord)
			cat.Remove(id)
			delete(live, id)
			continue
		}
		ord := cat.Put(catalog.Entry{ID: id})
		live[id] = ord
		for _, k := range byOrd[ord] {
			delete(refs, k)
		}
		delete(byOrd, ord)
		m.drop(ord)
		var keys []uint64
		for range r.IntN(5) {
			k := next
			next += 1 + uint64(r.IntN(3))
			s := randSpan()
			m.put(k, ord, s)
			refs[k] = struct {
				ord uint32
				s   span
			}{ord, s}
			keys = append(keys, k)
		}
		m.setKeys(ord, keys)
		if len(keys) > 0 {
			byOrd[ord] = slices.Clone(keys)
		}
		if step%500 == 0 {
			check(m)
		}
	}
	check(m)
	vi := &vecIndex{cat: cat, cm: m}
	s, err := decodeState(vi.encodeState(nil, snapfmt.Mark{Seq: 1, Entry: "e1"}))
	if err != nil {
		t.Fatal(err)
	}
	check(s.cm)
	if !maps.Equal(m.wide, s.cm.wide) || len(m.wide) == 0 {
		t.Fatalf("wide ranges %d after the snapshot, %d before", len(s.cm.wide), len(m.wide))
	}
}

// BenchmarkChunkMapMemory reports the heap the chunk bookkeeping of n
// entries holds (one chunk each, 2-4 for one entry in ten, fixed seed),
// filled as Apply fills it, per entry; the catalog is built beforehand
// and not counted. Run with -benchtime 1x.
func BenchmarkChunkMapMemory(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			cat := catalog.New()
			ords := make([]uint32, n)
			for i := range ords {
				ords[i] = cat.Put(catalog.Entry{ID: fmt.Sprintf("%032x", i+1), Owner: "local"})
			}
			var per float64
			b.ResetTimer()
			for range b.N {
				r := rand.New(rand.NewPCG(7, 7))
				b.StopTimer()
				runtime.GC()
				var m0, m1 runtime.MemStats
				runtime.ReadMemStats(&m0)
				b.StartTimer()
				m := newChunkMap(0, 0)
				key := uint64(0)
				for _, ord := range ords {
					k := 1
					if r.IntN(10) == 0 {
						k = 2 + r.IntN(3)
					}
					keys := make([]uint64, 0, k)
					for j := range k {
						key++
						keys = append(keys, key)
						m.put(key, ord, span{index: j, start: j * 1400, end: j*1400 + 1500})
					}
					m.setKeys(ord, keys)
				}
				b.StopTimer()
				runtime.GC()
				runtime.ReadMemStats(&m1)
				per = float64(m1.HeapAlloc-m0.HeapAlloc) / float64(n)
				runtime.KeepAlive(m)
				b.StartTimer()
			}
			b.ReportMetric(per, "heap-B/entry")
		})
	}
}
