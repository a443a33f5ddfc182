package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/contextd/contextd/internal/lab/cranfield"
	"github.com/contextd/contextd/internal/wordvec"
)

// result is one variant's figures: Cranfield nDCG@10 over all judged
// queries and per half, paraphrase top-k over all pairs and top-5 on the
// development split.
type result struct {
	name                  string
	cAll, cOdd, cEven     float64
	p1, p5, p10, p5d, p5h float64
}

func (r result) String() string {
	return fmt.Sprintf("| %s | %.4f / %.4f / %.4f | %.3f / %.3f | %.3f / %.3f / %.3f |",
		r.name, r.cAll, r.cOdd, r.cEven, r.p5d, r.p5h, r.p1, r.p5, r.p10)
}

// score ranks by exact cosine (the vectors are unit length or zero).
func score(c *corpus, name string, v [][]float32) result {
	return scoreWith(c, name, func(q, from, n int) []int { return topK(v[q], v[from:from+n], n) })
}

// order ranks the n documents texts[from:from+n] for the query texts[q]:
// their positions, best first.
type order func(q, from, n int) []int

// rerankOrder is a two-stage ranking: the depth best by first's cosine,
// reordered by second's cosine, then the rest in first's order; what a
// reranker with its own embedding does to a first stage's candidates.
func rerankOrder(first, second [][]float32, depth int) order {
	return func(q, from, n int) []int {
		all := topK(first[q], first[from:from+n], n)
		head := all[:min(depth, n)]
		sort.SliceStable(head, func(a, b int) bool {
			return dot(second[q], second[from+head[a]]) > dot(second[q], second[from+head[b]])
		})
		return all
	}
}

func scoreWith(c *corpus, name string, rank order) result {
	r := result{name: name}
	var sum [3]float64
	var n [3]int
	for q := 0; q < c.nQueries; q++ {
		judg := c.cranQrels[q+1]
		if cranfield.Relevant(judg) == 0 {
			continue
		}
		top := rank(c.cranQueries+q, 0, c.nDocs)[:10]
		ranked := make([]int, len(top))
		for i, d := range top {
			ranked[i] = c.docNums[d]
		}
		g := cranfield.NDCG(ranked, judg, 10)
		sum[0] += g
		n[0]++
		half := 1 + (q+1)%2 // 2: odd query number (choosing), 1: even
		sum[half] += g
		n[half]++
	}
	r.cAll, r.cEven, r.cOdd = sum[0]/float64(n[0]), sum[1]/float64(n[1]), sum[2]/float64(n[2])
	var dev, held, nd, nh float64
	for i, p := range c.pairs {
		pos := slices.Index(rank(c.paraQueries+i, c.paraDocs, c.nPara), c.paraTarget[i]) + 1
		hit := func(k int) float64 {
			if pos <= k {
				return 1
			}
			return 0
		}
		r.p1 += hit(1)
		r.p5 += hit(5)
		r.p10 += hit(10)
		if p.Dev() {
			dev += hit(5)
			nd++
		} else {
			held += hit(5)
			nh++
		}
	}
	np := float64(len(c.pairs))
	r.p1, r.p5, r.p10, r.p5d, r.p5h = r.p1/np, r.p5/np, r.p10/np, dev/nd, held/nh
	return r
}

func dot(a, b []float32) float32 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// topK is the k best documents by cosine, ties to the lower index.
func topK(q []float32, docs [][]float32, k int) []int {
	idx := make([]int, len(docs))
	sims := make([]float32, len(docs))
	for i, d := range docs {
		idx[i], sims[i] = i, dot(q, d)
	}
	sort.SliceStable(idx, func(a, b int) bool { return sims[idx[a]] > sims[idx[b]] })
	return idx[:min(k, len(idx))]
}

func evalAll(ctx context.Context, c *corpus, dir, tablePath, only string) error {
	t, err := loadTable(tablePath)
	if err != nil {
		return err
	}
	run := func(name string, v func() ([][]float32, error)) ([][]float32, error) {
		if only != "" && !strings.Contains(name, only) {
			return nil, nil
		}
		vecs, err := v()
		if err != nil || vecs == nil {
			return nil, err
		}
		fmt.Println(score(c, name, vecs))
		return vecs, nil
	}
	fmt.Println("| variant | Cranfield all / odd / even | paraphrase top-5 dev / held out | paraphrase top-1 / 5 / 10 |")
	fmt.Println("| --- | --- | --- | --- |")
	base := make([][]float32, len(c.texts))
	for i, s := range c.texts {
		base[i] = make([]float32, t.Dim)
		t.Embed(s, base[i])
	}
	_, _ = run("built-in (GloVe wink 100k, whitened)", func() ([][]float32, error) { return base, nil })
	use, err := readF32(filepath.Join(dir, "texts.f32"), len(c.texts), 512)
	if err != nil {
		return err
	}
	_, _ = run("USE-lite, full encoder", func() ([][]float32, error) { return use, nil })
	for _, a := range []float32{0.3, 0.5} {
		_, _ = run(fmt.Sprintf("blend: built-in ⊕ full encoder, α = %.1f", a), func() ([][]float32, error) { return concat(base, use, a), nil })
	}
	var words []string
	if err := readJSON(filepath.Join(dir, "words.json"), &words); err != nil {
		return err
	}
	wv, err := readF32(filepath.Join(dir, "words.f32"), len(words), 512)
	if err != nil {
		return err
	}
	sample, err := os.ReadFile(filepath.Join(filepath.Dir(tablePath), "..", "..", "..", "internal", "lab", "wordvecgen", "pcsample.txt"))
	if err != nil {
		return err
	}
	d := &distiller{t: t, words: wv, sample: strings.Split(strings.TrimSpace(string(sample)), "\n")}
	for _, cfg := range variants {
		began := time.Now()
		v, err := run(cfg.String(), func() ([][]float32, error) { return d.embedAll(ctx, c.texts, cfg) })
		if err != nil {
			return err
		}
		if v != nil && cfg.blend {
			for _, a := range []float32{0.3, 0.5, 0.7} {
				_, _ = run(fmt.Sprintf("blend: built-in ⊕ %s, α = %.1f", cfg, a), func() ([][]float32, error) { return concat(base, v, a), nil })
			}
		}
		if v != nil {
			fmt.Fprintf(os.Stderr, "%s: %s\n", cfg, time.Since(began).Round(time.Millisecond))
		}
	}
	return reducedBlends(ctx, only, c, d, base, run)
}

// reducedBlends are the chosen blend brought back to 100 dimensions: the
// 200-d concatenation projected on the principal axes of the generator's
// sample sentences (plain, or whitened as well), so the vector index
// keeps its size.
func reducedBlends(ctx context.Context, only string, c *corpus, d *distiller, base [][]float32, run func(string, func() ([][]float32, error)) ([][]float32, error)) error {
	if only != "" && !strings.Contains("blend PCA 200 → 100 reordered", only) {
		return nil
	}
	cfg := config{dim: 100, sifA: 1e-4, eps: 0.005, words: 100000}
	dv, err := d.embedAll(ctx, c.texts, cfg)
	if err != nil {
		return err
	}
	ds, err := d.embedAll(ctx, d.sample, cfg)
	if err != nil {
		return err
	}
	bs := make([][]float32, len(d.sample))
	for i, s := range d.sample {
		bs[i] = make([]float32, d.t.Dim)
		d.t.Embed(s, bs[i])
	}
	blend := concat(base, dv, 0.5)
	for _, depth := range []int{20, 100} {
		_, _ = run(fmt.Sprintf("built-in top %d reordered by the α = 0.5 blend", depth), func() ([][]float32, error) {
			fmt.Println(scoreWith(c, fmt.Sprintf("built-in top %d reordered by the α = 0.5 blend", depth), rerankOrder(base, blend, depth)))
			return nil, nil
		})
	}
	for _, a := range []float32{0.5} {
		sample, texts := concat(bs, ds, a), concat(base, dv, a)
		ps, pt := project(sample, 200, 100), projectWith(sample, texts, 200, 100)
		for _, v := range pt {
			wordvec.Normalize(v)
		}
		name := fmt.Sprintf("blend: built-in ⊕ %s, α = %.1f, PCA 200 → 100", cfg, a)
		_, _ = run(name, func() ([][]float32, error) { return pt, nil })
		for _, eps := range []float64{0.005, 0.02} {
			var keep [][]float32
			for _, v := range ps {
				wordvec.Normalize(v)
				keep = append(keep, v)
			}
			mean, w := wordvec.Whiten(keep, 100, eps)
			out := make([][]float32, len(pt))
			for i, v := range pt {
				out[i] = append([]float32(nil), v...)
				whiten(out[i], mean, w)
			}
			_, _ = run(fmt.Sprintf("%s, whitened ε = %g", name, eps), func() ([][]float32, error) { return out, nil })
		}
	}
	return nil
}

// concat is α·a ⊕ (1−α)·b, normalised: its cosine is a fixed mix of the
// two cosines.
func concat(a, b [][]float32, alpha float32) [][]float32 {
	out := make([][]float32, len(a))
	for i := range a {
		v := make([]float32, 0, len(a[i])+len(b[i]))
		for _, x := range a[i] {
			v = append(v, alpha*x)
		}
		for _, x := range b[i] {
			v = append(v, (1-alpha)*x)
		}
		wordvec.Normalize(v)
		out[i] = v
	}
	return out
}
