package kchunk

import "container/heap"

// The byte-pair merge of merge rescans the whole piece for the best pair
// after every join: quadratic in the piece's length. A piece is one run
// the pre-tokenizer did not split, such as a word of letters, and a
// document can be one word: a PDF whose page shows the letter x 262,000
// times counted its tokens for more than three minutes, and its upload
// never finished. Pieces longer than longPiece bytes are therefore merged
// with a heap of candidate pairs (lowest rank first, then leftmost, the
// order the scan picks), in O(n log n), with the same result.

// longPiece is the length above which mergeLong runs.
const longPiece = 256

// pairItem is a candidate join: the token starting at byte start with the
// token after it, of the given rank when it was pushed.
type pairItem struct{ rank, start int }

type pairHeap []pairItem

func (h pairHeap) Len() int { return len(h) }
func (h pairHeap) Less(i, j int) bool {
	if h[i].rank != h[j].rank {
		return h[i].rank < h[j].rank
	}
	return h[i].start < h[j].start
}
func (h pairHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *pairHeap) Push(x any)   { *h = append(*h, x.(pairItem)) }
func (h *pairHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// mergeLong is merge for a long piece.
func (t *Tokenizer) mergeLong(piece string) []uint16 {
	n := len(piece)
	// Tokens are identified by their start byte; next[s] is where the
	// token starting at s ends (the next token's start, n for the last),
	// prev[s] the start of the token before it (-1 for the first).
	next := make([]int32, n+1)
	prev := make([]int32, n+1)
	for i := range n + 1 {
		next[i], prev[i] = int32(i+1), int32(i-1)
	}
	alive := make([]bool, n)
	for i := range alive {
		alive[i] = true
	}
	const none = -1
	rank := func(s int) int { // the rank of joining token s with the next
		e := int(next[s])
		if e >= n {
			return none
		}
		if r, ok := t.ranks[piece[s:next[e]]]; ok {
			return r
		}
		return none
	}
	h := make(pairHeap, 0, n)
	for s := range n {
		if r := rank(s); r != none {
			h = append(h, pairItem{r, s})
		}
	}
	heap.Init(&h)
	for h.Len() > 0 {
		it := heap.Pop(&h).(pairItem)
		s := it.start
		if !alive[s] || rank(s) != it.rank {
			continue // stale: the token or its neighbour changed since
		}
		e := next[s] // the token joined into s
		alive[e] = false
		next[s] = next[e]
		if int(next[e]) <= n-1 {
			prev[next[e]] = int32(s)
		}
		if r := rank(s); r != none {
			heap.Push(&h, pairItem{r, s})
		}
		if p := prev[s]; p >= 0 {
			if r := rank(int(p)); r != none {
				heap.Push(&h, pairItem{r, int(p)})
			}
		}
	}
	var out []uint16
	for s := 0; s < n; s = int(next[s]) {
		out = append(out, uint16(int(next[s])-s))
	}
	return out
}
