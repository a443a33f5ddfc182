package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// loadCranfield reads the collection the way cmd/contextd's eval does:
// a document is its title and abstract, a query its words on one line,
// qrels[q][d] the grade (1 best .. 4; -1 not relevant) of document d for
// the q-th query (1-based file position).
func loadCranfield(dir string) (docs, queries []string, qrels map[int]map[int]int, err error) {
	recs, err := records(filepath.Join(dir, "cran.all.1400"))
	if err != nil {
		return nil, nil, nil, err
	}
	for i, r := range recs {
		text := strings.TrimSpace(strings.TrimSpace(r["T"]) + "\n" + strings.TrimSpace(r["W"]))
		if text == "" {
			text = fmt.Sprintf("document %d", i+1)
		}
		docs = append(docs, text)
	}
	qs, err := records(filepath.Join(dir, "cran.qry"))
	if err != nil {
		return nil, nil, nil, err
	}
	for _, q := range qs {
		queries = append(queries, strings.Join(strings.Fields(q["W"]), " "))
	}
	raw, err := os.ReadFile(filepath.Join(dir, "cranqrel"))
	if err != nil {
		return nil, nil, nil, err
	}
	qrels = map[int]map[int]int{}
	for _, line := range strings.Split(string(raw), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		q, e1 := strconv.Atoi(f[0])
		d, e2 := strconv.Atoi(f[1])
		g, e3 := strconv.Atoi(f[2])
		if e1 != nil || e2 != nil || e3 != nil {
			return nil, nil, nil, fmt.Errorf("cranqrel: bad line %q", line)
		}
		if qrels[q] == nil {
			qrels[q] = map[int]int{}
		}
		qrels[q][d] = g
	}
	if len(docs) != 1400 || len(queries) != 225 {
		return nil, nil, nil, fmt.Errorf("%w: %d documents, %d queries", errShape, len(docs), len(queries))
	}
	return docs, queries, qrels, nil
}

// records splits a Cranfield file into its ".X" fields; documents are
// numbered 1..1400 in file order, which the qrels use.
func records(path string) ([]map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var recs []map[string]string
	field := ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		switch line := sc.Text(); {
		case strings.HasPrefix(line, ".I "):
			recs, field = append(recs, map[string]string{}), ""
		case len(line) == 2 && line[0] == '.':
			field = line[1:]
		case len(recs) > 0 && field != "":
			recs[len(recs)-1][field] += line + "\n"
		}
	}
	return recs, sc.Err()
}
