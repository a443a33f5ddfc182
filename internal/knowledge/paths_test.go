package knowledge

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/contextd/contextd/index/bm25"
	"github.com/contextd/contextd/index/extract"
)

// TestNormalizePathD2 checks the path examples of requirements D2.
func TestNormalizePathD2(t *testing.T) {
	for in, want := range map[string]string{
		"": "/", "   ": "/", `folder\file.txt`: "/folder/file.txt", "/folder/file.txt/": "/folder/file.txt",
		"/a//b///c/": "/a/b/c", "/../../etc": "/etc", "docs/./x": "/docs/x", "/": "/",
	} {
		if got := NormalizePath(in); got != want {
			t.Errorf("NormalizePath(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"/folder": "/folder/", `a\b\c`: "/a/b/c/", "": "/", "/../..": "/"} {
		if got := NormalizeFolderPath(in); got != want {
			t.Errorf("NormalizeFolderPath(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"/a/b/c": "/a/b/", "/a": "/", "/file.txt": "/"} {
		if got := ParentPath(in); got != want {
			t.Errorf("ParentPath(%q) = %q, want %q", in, got, want)
		}
	}
	if !ContainsTraversal(`/docs/..\x`) || ContainsTraversal("/docs/..x/") {
		t.Error("ContainsTraversal")
	}
}

func TestValidFileNameD2(t *testing.T) {
	for _, n := range []string{"report.pdf", "my file.txt", "résumé.docx", "file-name_v2.tar.gz", "..."} {
		if !ValidFileName(n) {
			t.Errorf("%q should be valid", n)
		}
	}
	for _, n := range []string{"../etc/passwd", "folder/file.txt", `..\etc\passwd`, `folder\file.txt`, "", "   ",
		"file\x00.txt", "file\t.txt", "file\n.txt", "file\x1f.txt", "file\x7f.txt", "\x01report.pdf", ".", ".."} {
		if ValidFileName(n) {
			t.Errorf("%q should be invalid", n)
		}
	}
}

func TestExt(t *testing.T) {
	for in, want := range map[string]string{"a.MD": ".md", "README": "", "...": "", "a.md ": ".md ", "report.pdf.exe": ".exe", "x.": ""} {
		if got := Ext(in); got != want {
			t.Errorf("Ext(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseID(t *testing.T) {
	const hex = "0190abcdef127abc8def0123456789ab"
	for _, in := range []string{hex, strings.ToUpper(hex), FormatID(hex), "{" + FormatID(hex) + "}", "(" + FormatID(hex) + ")"} {
		if got, ok := ParseID(in); !ok || got != hex {
			t.Errorf("ParseID(%q) = %q, %v", in, got, ok)
		}
	}
	for _, in := range []string{"not-a-uuid", "1", "../../admin", FormatID(hex) + "-extra", "550e8400'+OR+'1'='1", "0190abcd-ef12-7abc-8def-0123456789zz"} {
		if _, ok := ParseID(in); ok {
			t.Errorf("ParseID(%q) accepted", in)
		}
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 512: "512 B", 1024: "1.0 KB", 2048: "2.0 KB", 1 << 20: "1.0 MB", 2516582: "2.4 MB", 1 << 30: "1.0 GB"} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func hits(scores ...float64) []scored {
	out := make([]scored, len(scores))
	for i, s := range scores {
		out[i] = scored{i: int32(i), score: s}
	}
	return out
}

// TestFuseC2 checks the consequences listed in requirements C2.
func TestFuseC2(t *testing.T) {
	byIndex := func(l []scored) map[int32]float64 {
		m := map[int32]float64{}
		for _, h := range l {
			m[h.i] = h.score
		}
		return m
	}
	// 0 is top of both lists; 1 is only semantic; 2 only keyword (last).
	sem := hits(0.9, 0.5)
	kw := []scored{{i: 0, score: 0.8}, {i: 2, score: 0.2}}
	got := byIndex(fuse(sem, kw, 0.5))
	for i, w := range map[int32]float64{0: 1, 1: 0, 2: 0} {
		if math.Abs(got[i]-w) > 1e-9 {
			t.Errorf("alpha .5: %d = %v, want %v", i, got[i], w)
		}
	}
	// A single hit normalises to 1: a single-source top scores alpha.
	if got := byIndex(fuse(hits(0.3), nil, 0.5)); got[0] != 0.5 {
		t.Errorf("single semantic hit = %v, want 0.5", got[0])
	}
	// alpha 1: keyword-only hits score 0.
	if got := byIndex(fuse(nil, hits(0.7), 1)); got[0] != 0 {
		t.Errorf("alpha 1 keyword-only = %v", got[0])
	}
	for _, h := range fuse(hits(0.9, 0.1, -0.3), hits(0.6, 0.2), 0.5) {
		if h.score < 0 || h.score > 1 {
			t.Errorf("fused score %v outside [0,1]", h.score)
		}
	}
}

// TestTopOracle compares the heap selection with a full sort on random
// scores with many ties (approximate-free, but the same oracle style).
func TestTopOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	cands := make([]candidate, 500)
	hs := make([]scored, len(cands))
	for i := range cands {
		cands[i] = candidate{path: fmt.Sprintf("/p%02d", r.IntN(20)), index: r.IntN(5)}
		hs[i] = scored{i: int32(i), score: float64(r.IntN(10)) / 10}
	}
	want := slices.Clone(hs)
	sort.SliceStable(want, func(a, b int) bool { return better(cands, want[a], want[b]) })
	for _, k := range []int{1, 3, 10, 100, 500, 600} {
		got := top(cands, slices.Clone(hs), k)
		n := min(k, len(want))
		for i := range n {
			if got[i].score != want[i].score || cands[got[i].i].path != cands[want[i].i].path || cands[got[i].i].index != cands[want[i].i].index {
				t.Fatalf("k=%d: position %d differs", k, i)
			}
		}
		if len(got) != n {
			t.Fatalf("k=%d: %d hits", k, len(got))
		}
	}
}

// TestKeywordLegOracle compares BM25 scores with a direct evaluation of
// the formula on a two-chunk corpus.
func TestKeywordLegOracle(t *testing.T) {
	v := newVocab()
	mk := func(doc, text string) candidate {
		ic := v.indexChunk(Chunk{Text: text}, nil)
		return candidate{doc: doc, c: &ic}
	}
	cands := []candidate{mk("a", "tea tea pot"), mk("b", "pot")}
	res := mustLeg(cands, parseKeyword("tea"), 4, v, DefaultMaxQueryTerms)
	if len(res) != 1 || res[0].i != 0 {
		t.Fatalf("hits %v", res)
	}
	// tea is its own stem: the exact stream counts it at 1, the English
	// stream at 0.4.
	idf := math.Log(1 + (2-1+0.5)/(1+0.5))
	r := (1 + stemWeight) * idf * 2 * (bm25.K1 + 1) / (2 + bm25.K1*(1-bm25.B+bm25.B*3/2.0))
	if want := r / (r + 1); math.Abs(res[0].score-want) > 1e-12 {
		t.Errorf("score %v, want %v", res[0].score, want)
	}
}

func FuzzNormalizePath(f *testing.F) {
	for _, s := range []string{"", "/a/../b", `a\b`, "//x//", "/../../etc/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := NormalizePath(s)
		if !strings.HasPrefix(p, "/") || (p != "/" && strings.HasSuffix(p, "/")) || strings.Contains(p, "//") {
			t.Fatalf("NormalizePath(%q) = %q", s, p)
		}
		for _, seg := range strings.Split(p, "/") {
			if seg == ".." || seg == "." {
				t.Fatalf("NormalizePath(%q) = %q keeps a dot segment", s, p)
			}
		}
		if NormalizePath(p) != p {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, p, NormalizePath(p))
		}
	})
}

func FuzzParseID(f *testing.F) {
	f.Add("0190abcd-ef12-7abc-8def-0123456789ab")
	f.Add("{0190ABCD-EF12-7ABC-8DEF-0123456789AB}")
	f.Fuzz(func(t *testing.T, s string) {
		id, ok := ParseID(s)
		if !ok {
			return
		}
		if back, ok2 := ParseID(FormatID(id)); !ok2 || back != id || len(id) != 32 {
			t.Fatalf("ParseID(%q) = %q does not round-trip", s, id)
		}
	})
}

// TestSpansRoundTrip: chunks that are slices of the text (with a
// breadcrumb) are stored as spans and rebuilt identically; a chunk that
// is not a slice (Semantic's joined sentences) stores no spans.
func TestSpansRoundTrip(t *testing.T) {
	text := "# A\n\nalpha beta\n\n## B\n\ngamma"
	chunks := []Chunk{{Text: "A\n\nalpha beta", Start: 5, End: 15}, {Text: "A > B\n\ngamma", Start: 23, End: 28}, {Text: "alpha", Start: 5, End: 10}}
	sp := spansOf(text, chunks)
	if sp == nil {
		t.Fatal("no spans")
	}
	back, ok := chunksOf(text, sp)
	if !ok || len(back) != len(chunks) {
		t.Fatalf("chunksOf: %v %v", back, ok)
	}
	for i := range back {
		if back[i].Text != chunks[i].Text || back[i].Start != chunks[i].Start || back[i].End != chunks[i].End {
			t.Errorf("chunk %d: %+v, want %+v", i, back[i], chunks[i])
		}
	}
	if spansOf(text, []Chunk{{Text: "alpha  beta", Start: 5, End: 15}}) != nil {
		t.Error("a joined chunk must store no spans")
	}
	if _, ok := chunksOf("short", []span{{S: 2, E: 40}}); ok {
		t.Error("a span past the text must be refused")
	}
}

// TestSupportedExtensionsB2: the allow-list is the one of requirements B2
// and H22, byte for byte in the message; HTML is refused (B2 "Not
// supported (rejected at upload): .html .htm", XSS-04) although the
// extractor reads it; every accepted extension that is not stored as
// text has an extractor, so its blob can be ingested.
func TestSupportedExtensionsB2(t *testing.T) {
	const h22 = ".csv, .docx, .json, .log, .markdown, .md, .pdf, .pptx, .txt, .xml, .yaml, .yml"
	if got := SupportedList(); got != h22 {
		t.Errorf("SupportedList() = %q, want %q", got, h22)
	}
	for _, ext := range []string{".html", ".htm", ".xlsx", ".doc", ".mdx", ".exe", ".go", ".gif", ""} {
		if Supported(ext) {
			t.Errorf("%q is supported; B2 rejects it at upload", ext)
		}
	}
	for ext := range textNative {
		if !Supported(ext) {
			t.Errorf("text-native %q is not in the allow-list", ext)
		}
	}
	for _, ext := range SupportedExtensions {
		if textNative[ext] {
			continue
		}
		if _, ok := extract.ForName("f" + ext); !ok {
			t.Errorf("%q is accepted but no extractor reads it", ext)
		}
	}
}
