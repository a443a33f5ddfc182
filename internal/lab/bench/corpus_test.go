package bench

import (
	"fmt"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"testing"

	"github.com/contextd/contextd/internal/lab/testcorpus"
)

// A composed entry is 2-5 distinct pool sentences within composeWindow of
// each other, in pool order, each ending in a mark; the same i gives the
// same text, and the texts are pinned so that a change of the generator
// (which would make composed corpora of different runs incomparable) is
// seen.
func TestCompose(t *testing.T) {
	pool := make([]string, minPool)
	for i := range pool {
		pool[i] = fmt.Sprintf("pool sentence number %d of many", i)
	}
	pool[3] += "?"
	num := regexp.MustCompile(`number (\d+) of many[.?]`)
	counts := map[int]int{}
	for i := range 5000 {
		text := compose(pool, i)
		if again := compose(pool, i); again != text {
			t.Fatalf("entry %d: %q, then %q", i, text, again)
		}
		var idx []int
		for _, m := range num.FindAllStringSubmatch(text, -1) {
			n, _ := strconv.Atoi(m[1])
			idx = append(idx, n)
		}
		counts[len(idx)]++
		if len(idx) < composeMin || len(idx) > composeMax || !slices.IsSorted(idx) || len(slices.Compact(slices.Clone(idx))) != len(idx) ||
			idx[len(idx)-1]-idx[0] > 2*composeWindow {
			t.Fatalf("entry %d: sentences %v in %q", i, idx, text)
		}
	}
	for k := composeMin; k <= composeMax; k++ {
		if counts[k] < 1000 { // 1,250 expected of each
			t.Errorf("%d sentences in %d of 5,000 entries", k, counts[k])
		}
	}
	want := map[int]string{
		0:         "pool sentence number 454 of many. pool sentence number 478 of many. pool sentence number 483 of many. pool sentence number 485 of many. pool sentence number 490 of many.",
		1_000_000: "pool sentence number 205 of many. pool sentence number 212 of many. pool sentence number 229 of many. pool sentence number 231 of many.",
	}
	for i, w := range want {
		if got := compose(pool, i); got != w {
			t.Errorf("compose(pool, %d) = %q, want %q", i, got, w)
		}
	}
}

// The Go tree's corpus at 2,000,000 entries: the real paragraphs first
// (the texts of every smaller size), then composed entries, nearly all
// distinct, made on demand; Drop leaves nothing of it on the heap.
func TestLoadCorpusComposed(t *testing.T) {
	const size = 2_000_000
	heap := func() float64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return float64(ms.HeapAlloc) / (1 << 20)
	}
	before := heap()
	c, err := LoadCorpus("", size)
	if err != nil {
		t.Skipf("no Go source tree: %v", err)
	}
	loaded := heap()
	nReal := size - c.Composed()
	if c.Name != "go-doc-comments+composed" || c.Len() != size || nReal < 100_000 || nReal >= size {
		t.Fatalf("%s: %d entries, %d real", c.Name, c.Len(), nReal)
	}
	small, err := LoadCorpus("", 1000)
	if err != nil {
		t.Fatal(err)
	}
	for i := range small.Len() {
		if small.Text(i) != c.Text(i) {
			t.Fatalf("entry %d: %q at size 1000, %q at %d", i, small.Text(i), c.Text(i), size)
		}
	}
	// Just above the paragraphs: the same composed texts (the pool is made
	// from all paragraphs whatever the size).
	{
		just := &Corpus{size: nReal + 100, nReal: nReal, real: c.real, pool: testcorpus.SentencesOf(slices.Clone(c.real)), loaded: true}
		for i := nReal - 1; i < just.Len(); i++ {
			if just.Text(i) != c.Text(i) {
				t.Fatalf("entry %d: %q at size %d, %q at %d", i, just.Text(i), just.Len(), c.Text(i), size)
			}
		}
	}
	realBytes := 0
	for i := range nReal {
		realBytes += len(c.Text(i))
	}
	const sample = 20_000
	composedBytes, seen := 0, map[string]bool{}
	for i := range sample {
		text := c.Text(size - 1 - i*(size-nReal)/sample)
		composedBytes += len(text)
		seen[text] = true
	}
	realMean, composedMean := float64(realBytes)/float64(nReal), float64(composedBytes)/sample
	t.Logf("%d real paragraphs of %.0f bytes on average, %d sentences in the pool; composed entries %.0f bytes on average, %d distinct of %d sampled; heap %.1f MiB before, %.1f loaded",
		nReal, realMean, len(c.pool), composedMean, len(seen), sample, before, loaded)
	if len(seen) < sample*99/100 || composedMean < realMean || composedMean > 4*realMean {
		t.Errorf("composed entries: %d distinct of %d, %.0f bytes on average (real %.0f)", len(seen), sample, composedMean, realMean)
	}
	c.Drop()
	small.Drop()
	if after := heap(); after > before+2 || loaded < before+10 {
		t.Errorf("heap %.1f MiB before loading, %.1f loaded, %.1f dropped", before, loaded, after)
	}
	if c.Len() != size || c.Loaded() {
		t.Errorf("dropped: Len %d, Loaded %v", c.Len(), c.Loaded())
	}
}
