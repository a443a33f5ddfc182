package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/contextd/contextd/internal/wordvec"
)

// wordnet is the lexical graph of WordNet 3.0's data files (Debian
// wordnet-base): per lemma, the lemmas it shares a synset with and those
// of the synsets its pointers name, by relation.
type wordnet struct {
	syn   map[string]map[string]bool // same synset
	rel   map[string]map[string]bool // hypernym, hyponym, similar-to, also-see, derivation
	exc   map[string][]string        // irregular inflection -> lemmas (the .exc files)
	lemma map[string]bool
}

func loadWordNet(dir string) (*wordnet, error) {
	wn := &wordnet{syn: map[string]map[string]bool{}, rel: map[string]map[string]bool{}, exc: map[string][]string{}, lemma: map[string]bool{}}
	type synset struct {
		words []string
		ptrs  []string // "pos:offset"
	}
	sets := map[string]*synset{}
	for _, pos := range []string{"noun", "verb", "adj", "adv"} {
		f, err := os.Open(filepath.Join(dir, "data."+pos))
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "  ") {
				continue // licence header
			}
			if i := strings.Index(line, " | "); i >= 0 {
				line = line[:i]
			}
			fs := strings.Fields(line)
			if len(fs) < 4 {
				continue
			}
			ss := &synset{}
			key := string(fs[2][0]) + ":" + fs[0]
			if fs[2] == "s" {
				key = "a:" + fs[0]
			}
			n, _ := strconv.ParseInt(fs[3], 16, 32)
			k := 4
			for j := 0; j < int(n); j++ {
				w := strings.ToLower(fs[k])
				if p := strings.IndexByte(w, '('); p > 0 {
					w = w[:p]
				}
				ss.words = append(ss.words, w)
				wn.lemma[w] = true
				k += 2
			}
			np, _ := strconv.Atoi(fs[k])
			k++
			for j := 0; j < np; j++ {
				sym, off, p := fs[k], fs[k+1], fs[k+2]
				k += 4
				switch sym {
				case "@", "@i", "~", "~i", "&", "^", "+", "$":
					if p == "s" {
						p = "a"
					}
					ss.ptrs = append(ss.ptrs, p+":"+off)
				}
			}
			sets[key] = ss
		}
		f.Close()
		if err := sc.Err(); err != nil {
			return nil, err
		}
		ef, err := os.Open(filepath.Join(dir, pos+".exc"))
		if err != nil {
			return nil, err
		}
		sc = bufio.NewScanner(ef)
		for sc.Scan() {
			fs := strings.Fields(sc.Text())
			if len(fs) >= 2 {
				wn.exc[fs[0]] = append(wn.exc[fs[0]], fs[1:]...)
			}
		}
		ef.Close()
	}
	add := func(m map[string]map[string]bool, a, b string) {
		if a == b {
			return
		}
		if m[a] == nil {
			m[a] = map[string]bool{}
		}
		m[a][b] = true
	}
	for _, ss := range sets {
		for _, a := range ss.words {
			for _, b := range ss.words {
				add(wn.syn, a, b)
			}
			for _, p := range ss.ptrs {
				if t := sets[p]; t != nil {
					for _, b := range t.words {
						add(wn.rel, a, b)
						add(wn.rel, b, a)
					}
				}
			}
		}
	}
	return wn, nil
}

// lemmas are the WordNet base forms of w: itself when it is one, its
// irregular forms' lemmas, and WordNet's detachment rules (morphy).
func (wn *wordnet) lemmas(w string) []string {
	if wn.lemma[w] {
		return []string{w}
	}
	if l := wn.exc[w]; l != nil {
		return l
	}
	var out []string
	for _, r := range [][2]string{
		{"s", ""}, {"ses", "s"}, {"xes", "x"}, {"zes", "z"}, {"ches", "ch"}, {"shes", "sh"}, {"men", "man"}, {"ies", "y"},
		{"es", "e"}, {"es", ""}, {"ed", "e"}, {"ed", ""}, {"ing", "e"}, {"ing", ""}, {"er", ""}, {"est", ""}, {"er", "e"}, {"est", "e"},
	} {
		if strings.HasSuffix(w, r[0]) {
			if b := strings.TrimSuffix(w, r[0]) + r[1]; wn.lemma[b] && !slices.Contains(out, b) {
				out = append(out, b)
			}
		}
	}
	return out
}

// retrofitCfg is one retrofitting variant (Faruqui et al. 2015): each
// word moves towards its WordNet neighbours, beta their total weight
// against the original vector's 1.
type retrofitCfg struct {
	rel   bool    // hypernyms etc. as well as synonyms
	beta  float32 // neighbours' total weight
	iters int
}

func (c retrofitCfg) String() string {
	s := "synonyms"
	if c.rel {
		s = "synonyms + relations"
	}
	return fmt.Sprintf("retrofit: %s, β = %g, %d iterations", s, c.beta, c.iters)
}

// retrofit returns a new table whose vectors are t's retrofitted to wn,
// with its whitening re-estimated on the generator's sample.
func retrofit(t *wordvec.Table, wn *wordnet, cfg retrofitCfg, sample []string) (*wordvec.Table, error) {
	n := len(t.Ranks)
	words := make([]string, n)
	index := make(map[string]int, n)
	orig := make([][]float32, n)
	for i := range orig {
		words[i] = t.Word(i)
		index[words[i]] = i
		orig[i] = make([]float32, t.Dim)
		t.Vector(i, orig[i])
	}
	// Inflected forms share their lemmas' neighbours (morphy), and the
	// lemma itself is a neighbour.
	nb := make([][]int, n)
	for i, w := range words {
		seen := map[int]bool{i: true}
		addW := func(o string) {
			if j, ok := index[o]; ok && !seen[j] {
				seen[j] = true
				nb[i] = append(nb[i], j)
			}
		}
		for _, l := range wn.lemmas(w) {
			addW(l)
			for o := range wn.syn[l] {
				addW(o)
			}
			if cfg.rel {
				for o := range wn.rel[l] {
					addW(o)
				}
			}
		}
	}
	q := make([][]float32, n)
	for i := range q {
		q[i] = append([]float32(nil), orig[i]...)
	}
	next := make([]float32, t.Dim)
	for it := 0; it < cfg.iters; it++ {
		for i := range q {
			if len(nb[i]) == 0 {
				continue
			}
			w := cfg.beta / float32(len(nb[i]))
			for k := range next {
				next[k] = orig[i][k]
			}
			for _, j := range nb[i] {
				for k, x := range q[j] {
					next[k] += w * x
				}
			}
			for k := range next {
				q[i][k] = next[k] / (1 + cfg.beta)
			}
		}
	}
	nt := &wordvec.Table{Dim: t.Dim, Vocab: t.Vocab, SIFA: t.SIFA, Words: words, Ranks: t.Ranks}
	data, err := wordvec.Encode(nt, q)
	if err != nil {
		return nil, err
	}
	qt, err := wordvec.Decode(data)
	if err != nil {
		return nil, err
	}
	nt.Mean0, nt.W = wordvec.Whiten(qt.SampleMeans(sample), nt.Dim, wordvec.WhiteningEps)
	if data, err = wordvec.Encode(nt, q); err != nil {
		return nil, err
	}
	return wordvec.Decode(data)
}

func evalRetrofit(c *corpus, tablePath, wnDir string) error {
	t, err := loadTable(tablePath)
	if err != nil {
		return err
	}
	wn, err := loadWordNet(wnDir)
	if err != nil {
		return err
	}
	sample, err := os.ReadFile(filepath.Join(filepath.Dir(tablePath), "..", "..", "..", "internal", "lab", "wordvecgen", "pcsample.txt"))
	if err != nil {
		return err
	}
	sents := strings.Split(strings.TrimSpace(string(sample)), "\n")
	embed := func(t *wordvec.Table) [][]float32 {
		out := make([][]float32, len(c.texts))
		for i, s := range c.texts {
			out[i] = make([]float32, t.Dim)
			t.Embed(s, out[i])
		}
		return out
	}
	fmt.Println("| variant | Cranfield all / odd / even | paraphrase top-5 dev / held out | paraphrase top-1 / 5 / 10 |")
	fmt.Println("| --- | --- | --- | --- |")
	fmt.Println(score(c, "built-in", embed(t)))
	for _, cfg := range []retrofitCfg{
		{false, 1, 10}, {true, 1, 10}, {false, 2, 10}, {true, 2, 10}, {false, 0.5, 10}, {true, 0.5, 10}, {true, 4, 10},
	} {
		rt, err := retrofit(t, wn, cfg, sents)
		if err != nil {
			return err
		}
		fmt.Println(score(c, cfg.String(), embed(rt)))
	}
	return nil
}
