package cranfield

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNDCGOracle: the hand-computed value of a ranking with the grade-3
// document (gain 2) first and the grade-1 one (gain 4) second, against
// the ideal order 4, 2; the ideal ranking scores 1 and a ranking without
// a relevant document 0.
func TestNDCGOracle(t *testing.T) {
	j := map[int]int{7: 1, 9: 3, 11: -1}
	want := (2/math.Log2(2) + 4/math.Log2(3)) / (4/math.Log2(2) + 2/math.Log2(3))
	if got := NDCG([]int{9, 7, 11}, j, 10); math.Abs(got-want) > 1e-12 {
		t.Fatalf("nDCG@10 %v, want %v", got, want)
	}
	if got := NDCG([]int{7, 9}, j, 10); math.Abs(got-1) > 1e-12 {
		t.Fatalf("ideal ranking %v", got)
	}
	if got := NDCG([]int{11}, j, 10); got != 0 {
		t.Fatalf("no relevant document %v", got)
	}
	if got := NDCG([]int{9, 7}, j, 1); math.Abs(got-0.5) > 1e-12 {
		t.Fatalf("nDCG@1 %v, want 0.5", got)
	}
	if Relevant(j) != 2 || Gain(-1) != 0 || Gain(5) != 0 || Gain(1) != 4 {
		t.Fatalf("Relevant %d, gains %v %v %v", Relevant(j), Gain(-1), Gain(5), Gain(1))
	}
}

// writeCollection writes a collection of n documents and q queries.
func writeCollection(t *testing.T, n, q int, qrels string) string {
	t.Helper()
	dir := t.TempDir()
	var docs, qry strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&docs, ".I %d\n.T\ntitle %d\n.A\nauthor\n.W\nabstract\nof %d\n", i, i, i)
	}
	for i := 1; i <= q; i++ {
		fmt.Fprintf(&qry, ".I %03d\n.W\nwhat is\n  query %d ?\n", i, i)
	}
	for name, text := range map[string]string{"cran.all.1400": docs.String(), "cran.qry": qry.String(), "cranqrel": qrels} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLoad(t *testing.T) {
	col, err := Load(writeCollection(t, 1400, 225, "1 184 2\n1 29 -1\n\n"))
	if err != nil {
		t.Fatal(err)
	}
	if d := col.Docs[183]; d.Num != 184 || d.Text != "title 184\nabstract\nof 184" {
		t.Fatalf("document 184 = %+v", d)
	}
	if col.Queries[224] != "what is query 225 ?" || col.Qrels[1][184] != 2 || col.Qrels[1][29] != -1 {
		t.Fatalf("query %q, qrels %v", col.Queries[224], col.Qrels)
	}
}

// TestLoadRejects: each broken collection fails with a message naming
// what was wrong.
func TestLoadRejects(t *testing.T) {
	for _, tc := range []struct {
		name, dir, want string
	}{
		{"missing", t.TempDir(), "read documents"},
		{"short", writeCollection(t, 3, 225, ""), "expected 1400 documents and 225 queries, read 3 and 225"},
		{"bad qrel", writeCollection(t, 1400, 225, "1 x 2\n"), `line "1 x 2"`},
	} {
		if _, err := Load(tc.dir); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

// FuzzReadRecords: any file either parses into as many records as ".I"
// lines or fails on a bad record line; it never panics.
func FuzzReadRecords(f *testing.F) {
	f.Add(".I 1\n.T\nx\n.W\ny\n")
	f.Add(".I x\n")
	f.Add("no records\n.W\nstray")
	f.Fuzz(func(t *testing.T, text string) {
		p := filepath.Join(t.TempDir(), "f")
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		recs, nums, err := readRecords(p)
		if err != nil {
			return
		}
		if len(recs) != len(nums) {
			t.Fatalf("%d records, %d numbers", len(recs), len(nums))
		}
	})
}
