package wordvec

import "strings"

// vocab maps the table's words to their indexes. The words live in one
// string and the index is an open-addressing table of word numbers, so
// 100,000 words cost 2.3 MiB instead of the 6.9 MiB of a []string plus a
// map[string]int32 (measured 2026-12-03 on the vendored table: the decoded
// table fell from 16.4 to 12.9 MiB of heap, most of it the int8 codes).
type vocab struct {
	text  string   // every word, in table order
	ends  []uint32 // word i is text[ends[i-1]:ends[i]] (ends[-1] = 0)
	slots []int32  // word number + 1 at its hash's probe position; 0 = empty
}

// newVocab prepares for n words of about size bytes in all.
func newVocab(n, size int) (*vocab, *strings.Builder) {
	slots := 1
	for slots < 2*n {
		slots <<= 1
	}
	var b strings.Builder
	b.Grow(size)
	return &vocab{ends: make([]uint32, 0, n), slots: make([]int32, slots)}, &b
}

func hashWord[T string | []byte](w T) uint32 {
	h := uint32(2166136261) // FNV-1a
	for i := 0; i < len(w); i++ {
		h ^= uint32(w[i])
		h *= 16777619
	}
	return h
}

// word is word i.
func (v *vocab) word(i int) string {
	start := uint32(0)
	if i > 0 {
		start = v.ends[i-1]
	}
	return v.text[start:v.ends[i]]
}

// find returns w's index, or -1. It does not allocate.
func find[T string | []byte](v *vocab, w T) int {
	mask := uint32(len(v.slots) - 1)
	for p := hashWord(w) & mask; ; p = (p + 1) & mask {
		s := v.slots[p]
		if s == 0 {
			return -1
		}
		if v.word(int(s-1)) == string(w) {
			return int(s - 1)
		}
	}
}

// add appends w (written to b, which holds the words so far) as the next
// word; false when w is already there.
func (v *vocab) add(b *strings.Builder, w string) bool {
	v.text = b.String()
	if find(v, w) >= 0 {
		return false
	}
	b.WriteString(w)
	v.text = b.String()
	v.ends = append(v.ends, uint32(b.Len()))
	mask := uint32(len(v.slots) - 1)
	p := hashWord(w) & mask
	for v.slots[p] != 0 {
		p = (p + 1) & mask
	}
	v.slots[p] = int32(len(v.ends))
	return true
}
