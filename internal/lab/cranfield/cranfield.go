// Package cranfield owns the Cranfield 1400 test collection as contextd
// evaluates it: reading the collection files (documents as title plus
// abstract, queries in file order, graded judgements) and the graded
// metric, nDCG@k with gain 5 − grade. `contextd eval cranfield` and the
// embedder lab (internal/lab/embedlab) share it, so their
// figures are computed alike.
//
//	col, err := cranfield.Load("testdata/cranfield")
//	score := cranfield.NDCG(rankedDocNums, col.Qrels[1], 10)
package cranfield

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Doc is one Cranfield document.
type Doc struct {
	Num  int
	Text string // title + abstract
}

// Collection is the collection: documents, queries in file order (query
// k of the qrels is Queries[k-1]) and graded judgements.
type Collection struct {
	Docs    []Doc
	Queries []string
	Qrels   map[int]map[int]int // query position -> doc -> grade (1 best .. 4; -1 not relevant)
}

// readRecords splits a Cranfield file into records of ".X" fields.
func readRecords(path string) ([]map[string]string, []int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	var recs []map[string]string
	var nums []int
	field := ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, ".I ") {
			n, err := strconv.Atoi(strings.TrimSpace(line[3:]))
			if err != nil {
				return nil, nil, fmt.Errorf("%s: bad record line %q", path, line)
			}
			recs = append(recs, map[string]string{})
			nums = append(nums, n)
			field = ""
			continue
		}
		if len(line) == 2 && line[0] == '.' {
			field = line[1:]
			continue
		}
		if len(recs) == 0 || field == "" {
			continue
		}
		recs[len(recs)-1][field] += line + "\n"
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return recs, nums, nil
}

// Load reads cran.all.1400, cran.qry and cranqrel from dir.
func Load(dir string) (*Collection, error) {
	docs, nums, err := readRecords(filepath.Join(dir, "cran.all.1400"))
	if err != nil {
		return nil, fmt.Errorf("read documents: %w", err)
	}
	col := &Collection{Qrels: map[int]map[int]int{}}
	for i, d := range docs {
		text := strings.TrimSpace(strings.TrimSpace(d["T"]) + "\n" + strings.TrimSpace(d["W"]))
		if text == "" {
			text = fmt.Sprintf("document %d", nums[i])
		}
		col.Docs = append(col.Docs, Doc{Num: nums[i], Text: text})
	}
	qs, _, err := readRecords(filepath.Join(dir, "cran.qry"))
	if err != nil {
		return nil, fmt.Errorf("read queries: %w", err)
	}
	for _, q := range qs {
		col.Queries = append(col.Queries, strings.Join(strings.Fields(q["W"]), " "))
	}
	qrelPath := filepath.Join(dir, "cranqrel")
	raw, err := os.ReadFile(qrelPath)
	if err != nil {
		return nil, fmt.Errorf("read judgements: %w", err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		q, err1 := strconv.Atoi(f[0])
		d, err2 := strconv.Atoi(f[1])
		g, err3 := strconv.Atoi(f[2])
		if err := errors.Join(err1, err2, err3); err != nil {
			return nil, fmt.Errorf("%s: line %q: %w", qrelPath, line, err)
		}
		if col.Qrels[q] == nil {
			col.Qrels[q] = map[int]int{}
		}
		col.Qrels[q][d] = g
	}
	if len(col.Docs) != 1400 || len(col.Queries) != 225 {
		return nil, fmt.Errorf("expected 1400 documents and 225 queries, read %d and %d", len(col.Docs), len(col.Queries))
	}
	return col, nil
}

// Gain is the graded relevance: 5 - grade for grades 1..4, else 0.
func Gain(grade int) float64 {
	if grade >= 1 && grade <= 4 {
		return float64(5 - grade)
	}
	return 0
}

// Relevant is how many documents of the judgements have a gain.
func Relevant(j map[int]int) int {
	n := 0
	for _, g := range j {
		if Gain(g) > 0 {
			n++
		}
	}
	return n
}

// NDCG is nDCG@k of the ranked document numbers: gains discounted by
// log2(rank + 1), over the ideal order of the judged gains; 0 when no
// document has a gain.
func NDCG(ranked []int, j map[int]int, k int) float64 {
	dcg := 0.0
	for i, d := range ranked[:min(k, len(ranked))] {
		dcg += Gain(j[d]) / math.Log2(float64(i+2))
	}
	var ideal []float64
	for _, g := range j {
		if Gain(g) > 0 {
			ideal = append(ideal, Gain(g))
		}
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(ideal)))
	idcg := 0.0
	for i, g := range ideal[:min(k, len(ideal))] {
		idcg += g / math.Log2(float64(i+2))
	}
	if idcg == 0 {
		return 0
	}
	return dcg / idcg
}
