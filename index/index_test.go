package index

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2025, 11, 29, 10, 0, 0, 0, time.UTC)

func testDocs() []Doc {
	return []Doc{
		{ID: "01", Text: "The authentication service refused the connection.", Owner: "alice", Public: true, ThreadID: "t1", Source: "user", ContentType: "text", Tags: []string{"auth"}, CreatedAt: t0},
		{ID: "02", Text: "Connection refused by the database server.", Owner: "alice", Public: true, ThreadID: "t1", Source: "agent", ContentType: "text", CreatedAt: t0.Add(time.Hour)},
		{ID: "03", Text: "Python scripts and Java programs.", Owner: "alice", Public: true, ThreadID: "t2", Source: "user", ContentType: "text", CreatedAt: t0.Add(2 * time.Hour)},
		{ID: "04", Text: "Python is a language for scripting.", Owner: "alice", Public: true, ThreadID: "t2", Source: "user", ContentType: "multimodal", Tags: []string{"lang"}, CreatedAt: t0.Add(3 * time.Hour)},
		{ID: "05", Text: "Secret authentication keys of bob.", Owner: "bob", ThreadID: "t1", Source: "user", ContentType: "text", CreatedAt: t0.Add(4 * time.Hour)},
		{ID: "06", Text: "Shared authorization notes.", Owner: "bob", Readers: []string{"g:team"}, ThreadID: "t1", Source: "user", ContentType: "text", CreatedAt: t0.Add(5 * time.Hour)},
		{ID: "07", Text: "Les cafés de Paris sont célèbres.", Owner: "alice", Public: true, ThreadID: "t3", Source: "user", ContentType: "text", CreatedAt: t0.Add(6 * time.Hour)},
	}
}

func openTest(t *testing.T, o Options) *Index {
	t.Helper()
	ix, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ix.Close() })
	if err := ix.Apply(context.Background(), testDocs(), nil, 7); err != nil {
		t.Fatal(err)
	}
	return ix
}

func ids(r Result) string {
	var s []string
	for _, h := range r.Hits {
		s = append(s, h.ID)
	}
	return strings.Join(s, ",")
}

func TestSearchModes(t *testing.T) {
	ix := openTest(t, Options{})
	alice := Access{Principal: "alice"}
	tests := []struct {
		name, mode, text string
		acc              Access
		want             string
	}{
		{"match stems", "match", "refusing connections", alice, "02,01"},
		{"match and drops operators", "match", "and or not", alice, ""},
		{"match punctuation is safe", "match", `cat( foo:bar "x`, alice, ""},
		{"prefix", "prefix", "auth", alice, "01"},
		{"prefix full word", "prefix", "authentication", alice, "01"},
		{"phrase in order", "phrase", "connection refused", alice, "02"},
		{"phrase reversed", "phrase", "refused connection", alice, ""},
		{"boolean not", "boolean", "python NOT java", alice, "04"},
		{"boolean or", "boolean", "java OR database", alice, "03,02"},
		{"boolean parens", "boolean", `(java OR "connection refused") AND (scripts OR database)`, alice, "03,02"},
		{"boolean malformed degrades", "boolean", "(python AND", alice, "04,03"},
		{"hidden never matches", "match", "secret", alice, ""},
		{"owner sees own", "match", "secret", Access{Principal: "bob"}, "05"},
		{"group grant", "match", "authorization", Access{Principal: "carol", Groups: []string{"team"}}, "06"},
		{"prefix hidden only", "prefix", "secr", alice, ""},
		{"folding", "match", "cafe", alice, "07"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := ix.Search(context.Background(), Query{Text: tc.text, Mode: tc.mode, Access: tc.acc, Size: 100})
			if err != nil {
				t.Fatal(err)
			}
			// Order among equal scores is id DESC; compare as sets when
			// the expectation lists several.
			got := ids(res)
			if len(res.Hits) > 1 && !sameSet(got, tc.want) || len(res.Hits) <= 1 && got != tc.want {
				t.Fatalf("%s %q: got [%s], want [%s]", tc.mode, tc.text, got, tc.want)
			}
		})
	}
}

func sameSet(a, b string) bool {
	as, bs := strings.Split(a, ","), strings.Split(b, ",")
	if len(as) != len(bs) {
		return false
	}
	m := map[string]bool{}
	for _, x := range as {
		m[x] = true
	}
	for _, x := range bs {
		if !m[x] {
			return false
		}
	}
	return true
}

func TestFilters(t *testing.T) {
	ix := openTest(t, Options{})
	alice := Access{Principal: "alice"}
	start, end := t0.Add(time.Hour), t0.Add(2*time.Hour)
	tests := []struct {
		name string
		q    Query
		want string
	}{
		{"thread", Query{Text: "python", ThreadID: "t1"}, ""},
		{"source", Query{Text: "connection", Source: "agent"}, "02"},
		{"content type", Query{Text: "python", Content: "multimodal"}, "04"},
		{"tags", Query{Text: "python", Tags: []string{"lang", "x"}}, "04"},
		{"dates", Query{Text: "connection OR python", Mode: "boolean", Start: &start, End: &end}, "03,02"},
		{"ids", Query{Text: "python", IDs: []string{"03"}}, "03"},
		{"empty ids", Query{Text: "python", IDs: []string{}}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.q.Access, tc.q.Size = alice, 100
			res, err := ix.Search(context.Background(), tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(res); !sameSet(got, tc.want) {
				t.Fatalf("got [%s], want [%s]", got, tc.want)
			}
		})
	}
}

func TestHighlight(t *testing.T) {
	ix := openTest(t, Options{})
	res, err := ix.Search(context.Background(), Query{Text: "refused", Access: Access{Principal: "alice"}, Size: 100, Highlight: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Hits {
		if h.ID != "02" {
			continue
		}
		got := Highlight(testDocs()[1].Text, h.Spans)
		if want := "Connection <mark>refused</mark> by the database server."; got != want {
			t.Fatalf("got %q, want %q", got, want)
		}
		return
	}
	t.Fatal("no hit 02")
}

func TestSnapshot(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db.index")
	ix, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if !ix.Fresh() {
		t.Fatal("new snapshot is not fresh")
	}
	if err := ix.Apply(context.Background(), testDocs(), nil, 42); err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	// A clean reopen keeps the documents and the watermark.
	ix, err = Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if ix.Fresh() {
		t.Fatalf("clean snapshot reopened fresh: %s", ix.Note())
	}
	if wm, _ := ix.Watermark(); wm != 42 {
		t.Fatalf("watermark %d, want 42", wm)
	}
	if n, _ := ix.DocCount(); n != 7 {
		t.Fatalf("doc count %d, want 7", n)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	// Another language is a rebuild.
	ix, err = Open(Options{Dir: dir, Language: "french"})
	if err != nil {
		t.Fatal(err)
	}
	if !ix.Fresh() || !strings.Contains(ix.Note(), "FTS_LANGUAGE") {
		t.Fatalf("language change: fresh=%v note=%q", ix.Fresh(), ix.Note())
	}
	if err := ix.Apply(context.Background(), testDocs(), nil, 1); err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	// Corrupt a data file: the checksum catches it.
	var victim string
	_ = filepath.WalkDir(filepath.Join(dir, "fts.bleve"), func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && victim == "" && strings.HasSuffix(p, ".zap") {
			victim = p
		}
		return nil
	})
	if victim == "" {
		t.Fatal("no segment file")
	}
	b, _ := os.ReadFile(victim)
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(victim, b, 0o644); err != nil {
		t.Fatal(err)
	}
	ix, err = Open(Options{Dir: dir, Language: "french"})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if !ix.Fresh() || !strings.Contains(ix.Note(), "checksum") {
		t.Fatalf("corrupt snapshot: fresh=%v note=%q", ix.Fresh(), ix.Note())
	}
	if n, _ := ix.DocCount(); n != 0 {
		t.Fatalf("rebuilt index holds %d docs", n)
	}
}

func TestLanguages(t *testing.T) {
	if n := len(Languages()); n != 29 {
		t.Fatalf("%d languages, want 29", n)
	}
	for _, l := range Languages() {
		t.Run(l, func(t *testing.T) {
			ix, err := Open(Options{Language: l})
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			if err := ix.Apply(context.Background(), testDocs(), nil, 1); err != nil {
				t.Fatal(err)
			}
			if _, err := ix.Search(context.Background(), Query{Text: "python", Access: Access{Principal: "alice"}, Size: 10}); err != nil {
				t.Fatal(err)
			}
		})
	}
	if _, err := Open(Options{Language: "klingon"}); err == nil {
		t.Fatal("klingon accepted")
	}
}

// TestSnapshotChecksums: a clean close seals the data with CRC-32C; a
// snapshot sealed with the earlier SHA-256 checksum still opens as it is
// (no rebuild), and one whose SHA-256 does not match is rebuilt.
func TestSnapshotChecksums(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db.index")
	ix, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.Apply(context.Background(), testDocs(), nil, 7); err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	metaPath := filepath.Join(dir, "fts.json")
	var meta snapMeta
	raw, _ := os.ReadFile(metaPath)
	if err := json.Unmarshal(raw, &meta); err != nil || !strings.HasPrefix(meta.Checksum, crcPrefix) {
		t.Fatalf("sealed checksum %q (%v), want a CRC-32C", meta.Checksum, err)
	}
	for _, tc := range []struct {
		name  string
		sum   func() string
		fresh bool
	}{
		{"legacy SHA-256", func() string {
			sum, err := checksumDir(filepath.Join(dir, "fts.bleve"), "")
			if err != nil || len(sum) != 64 {
				t.Fatalf("legacy checksum %q, %v", sum, err)
			}
			return sum
		}, false},
		{"legacy SHA-256 of other data", func() string { return strings.Repeat("ab", 32) }, true},
	} {
		meta.Checksum, meta.Clean = tc.sum(), true
		b, _ := json.Marshal(meta)
		if err := os.WriteFile(metaPath, b, 0o644); err != nil {
			t.Fatal(err)
		}
		ix, err := Open(Options{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		if ix.Fresh() != tc.fresh {
			t.Fatalf("%s: fresh=%v, want %v (%s)", tc.name, ix.Fresh(), tc.fresh, ix.Note())
		}
		if err := ix.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
