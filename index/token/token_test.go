package token

import (
	"database/sql"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	_ "modernc.org/sqlite"
)

// fts5 is SQLite's unicode61 tokenizer (remove_diacritics 2), the oracle.
type fts5 struct{ db *sql.DB }

func openFTS5(t testing.TB) *fts5 {
	t.Helper()
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	for _, s := range []string{
		`CREATE VIRTUAL TABLE f USING fts5(x, tokenize='unicode61 remove_diacritics 2')`,
		`CREATE VIRTUAL TABLE v USING fts5vocab(f, 'instance')`,
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	return &fts5{db: db}
}

// termsMarker separates the texts packed into one FTS5 document: a
// token of its own between two spaces (a separator in every
// configuration), and terms refuses texts that contain it.
const termsMarker = "zzqtextendqzz"

// termsPerDoc texts share one FTS5 document. One row per text (196,607 for
// TestUnicode61Parity) cost 2 s of CPU in per-row statement and FTS5
// overhead; packed 1,024 to a row the tokenizer sees the same texts.
const termsPerDoc = 1024

// terms tokenizes every text; the result is indexed like texts.
func (f *fts5) terms(t testing.TB, texts []string) [][]string {
	t.Helper()
	tx, err := f.db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`DELETE FROM f`); err != nil {
		t.Fatal(err)
	}
	ins, err := tx.Prepare(`INSERT INTO f(rowid, x) VALUES (?, ?)`)
	if err != nil {
		t.Fatal(err)
	}
	defer ins.Close()
	for start := 0; start < len(texts); start += termsPerDoc {
		group := texts[start:min(start+termsPerDoc, len(texts))]
		for _, s := range group {
			if strings.Contains(strings.ToLower(s), termsMarker) {
				t.Fatalf("text %q contains the marker %q", s, termsMarker)
			}
		}
		if _, err := ins.Exec(start/termsPerDoc+1, strings.Join(group, " "+termsMarker+" ")); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := tx.Query(`SELECT doc, term FROM v ORDER BY doc, offset`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := make([][]string, len(texts))
	lastDoc, i, markers := 0, 0, 0
	for rows.Next() {
		var doc int
		var term string
		if err := rows.Scan(&doc, &term); err != nil {
			t.Fatal(err)
		}
		if doc != lastDoc {
			lastDoc, i = doc, (doc-1)*termsPerDoc
		}
		if term == termsMarker {
			i++
			markers++
			continue
		}
		out[i] = append(out[i], term)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	// One marker between two texts of a document: any other count means
	// the split went wrong.
	if want := len(texts) - (len(texts)+termsPerDoc-1)/termsPerDoc; markers != want {
		t.Fatalf("FTS5 returned %d markers, want %d", markers, want)
	}
	return out
}

func scanTerms(s string) []string {
	var out []string
	Scan(s, nil, func(_, _ int, term []byte) { out = append(out, string(term)) })
	return out
}

// TestUnicode61Parity checks every code point up to U+2FFFF, between two
// letters, against FTS5: token character or separator, and its folding.
// The one documented difference: a combining mark FTS5 separates on stays
// inside the word here.
func TestUnicode61Parity(t *testing.T) {
	f := openFTS5(t)
	var texts []string
	var runes []rune
	for c := rune(1); c <= 0x2FFFF; c++ {
		if utf8.ValidRune(c) {
			texts = append(texts, "a"+string(c)+"b")
			runes = append(runes, c)
		}
	}
	want := f.terms(t, texts)
	bad := 0
	for i, c := range runes {
		got := scanTerms(texts[i])
		w := want[i]
		if unicode.Is(unicode.M, c) && len(w) == 2 {
			if len(got) != 1 || got[0] != "a"+string(c)+"b" {
				t.Errorf("mark U+%04X: got %q, want it kept inside the word", c, got)
			}
			continue
		}
		if strings.Join(got, "|") != strings.Join(w, "|") {
			if bad++; bad <= 20 {
				t.Errorf("U+%04X: got %q, FTS5 %q", c, got, w)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d code points differ from FTS5", bad)
	}
}

// TestScanMixedParity compares whole random texts of technical tokens,
// accents and mixed scripts with FTS5 (fixed seed).
func TestScanMixedParity(t *testing.T) {
	pieces := []string{
		"fmt.Println", "config.yaml", "https://docs.example.org/guide", "a.b@x.com", "snake_case",
		"getUserName", "Café", "crème", "brûlée", "naïve", "résumé", "RÉSUMÉ", "e\u0301", "Ångström",
		"Straße", "øl", "Łódź", "ǅemal", "Việt", "日本語", "İstanbul", "x86_64", "v1.2.3", "C++",
		"don't", " ", "\n", "\t", "—", "…", "(", ")", "'", "\"", "-", "#", "1,000", "½", "²", "Ⅻ",
		"Αθήνα", "Москва", "\u00a0", "\u200b", "\xff", "ﬁne", "Ｆｕｌｌ",
	}
	rng := rand.New(rand.NewPCG(12, 1))
	var texts []string
	for range 2000 {
		var b strings.Builder
		for n := rng.IntN(12); n >= 0; n-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		texts = append(texts, strings.ToValidUTF8(b.String(), " "))
	}
	want := openFTS5(t).terms(t, texts)
	for i, s := range texts {
		if got := scanTerms(s); strings.Join(got, "|") != strings.Join(want[i], "|") {
			t.Fatalf("%q: got %q, FTS5 %q", s, got, want[i])
		}
	}
}

func TestScanTechnicalTokens(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"Call fmt.Println to print; config lives in config.yaml next to main.go", "call fmt println to print config lives in config yaml next to main go"},
		{"See https://docs.example.org/guide", "see https docs example org guide"},
		{"Café crème brûlée naïve résumé", "cafe creme brulee naive resume"},
		{"mail ops@example.com, snake_case and getUserName", "mail ops example com snake case and getusername"},
		{"हिन्दी भाषा", "हिन्दी भाषा"},
	} {
		if got := strings.Join(scanTerms(c.text), " "); got != c.want {
			t.Errorf("%q: got %q, want %q", c.text, got, c.want)
		}
	}
}

// TestScanOffsets: every token's range holds its text, ranges ascend.
func TestScanOffsets(t *testing.T) {
	s := "Call fmt.Println; résumé\u0301 at x@y.org"
	prev := 0
	Scan(s, nil, func(start, end int, term []byte) {
		if start < prev || end <= start || end > len(s) {
			t.Fatalf("bad range [%d,%d) after %d", start, end, prev)
		}
		prev = end
		if got := strings.Join(scanTerms(s[start:end]), ""); got != string(term) {
			t.Errorf("range %q scans to %q, term %q", s[start:end], got, term)
		}
	})
}

func FuzzScan(f *testing.F) {
	for _, s := range []string{"fmt.Println", "résumé", "e\u0301\u0301", "\xff\xfe", "हिन्दी", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		prev := 0
		Scan(s, nil, func(start, end int, term []byte) {
			if start < prev || end <= start || end > len(s) || len(term) == 0 || !utf8.Valid(term) {
				t.Fatalf("%q: bad token [%d,%d) %q after %d", s, start, end, term, prev)
			}
			prev = end
		})
	})
}

func BenchmarkScan(b *testing.B) {
	text := strings.Repeat("Call fmt.Println to print; config lives in config.yaml next to main.go. Café résumé. ", 20)
	b.ReportAllocs()
	b.SetBytes(int64(len(text)))
	var buf []byte
	n := 0
	for b.Loop() {
		buf = Scan(text, buf, func(int, int, []byte) { n++ })
	}
}

func TestStem(t *testing.T) {
	for in, want := range map[string]string{"running": "run", "migrations": "migrat", "brewed": "brew", "is": "is", "a": "a", "": ""} {
		if got := Stem(in); got != want {
			t.Errorf("Stem(%q) = %q, want %q", in, got, want)
		}
	}
}
