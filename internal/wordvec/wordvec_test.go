package wordvec

import (
	"errors"
	"math"
	"strings"
	"testing"
	"unicode"
)

func TestTokens(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"The Car's engine DIDN'T start.", "the car engine did not start"},
		{"I can't, won't; you're we've they'll I'm she'd", "i can not will not you are we have they will i am she would"},
		{"rock’n’roll o'clock", "rock n roll o clock"},
		{"Zürich naïve café 2024 x86_64", "zürich naïve café 2024 x86 64"},
		{"'quoted' words' end", "quoted words end"},
		{"", ""},
		{"ain't shan't n't", "is not shall not not"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			var got []string
			Tokens(tc.in, func(s string) { got = append(got, s) })
			if g := strings.Join(got, " "); g != tc.want {
				t.Fatalf("Tokens(%q) = %q, want %q", tc.in, g, tc.want)
			}
		})
	}
}

func testTable(t testing.TB) (*Table, []byte) {
	tab := &Table{Dim: 4, Vocab: 100, SIFA: 1e-3, PC: []float32{1, 0, 0, 0},
		Words: []string{"the", "car", "automobile", "bank"}, Ranks: []uint32{0, 50, 80, 60}}
	vecs := [][]float32{{1, 0.1, 0, 0}, {0.2, 1, 0.5, 0}, {0.1, 0.9, 0.6, 0}, {0.3, 0, 0, 1}}
	data, err := Encode(tab, vecs)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	return got, data
}

func TestRoundTripAndEmbed(t *testing.T) {
	tab, _ := testTable(t)
	if tab.Lookup("car") != 1 || tab.Lookup("truck") != -1 || tab.Ranks[2] != 80 {
		t.Fatalf("lookup or ranks wrong after round trip")
	}
	if w0, w1 := tab.Weight(0), tab.Weight(1); !(w0 < w1) {
		t.Fatalf("SIF weight of 'the' %.4f should be below 'car' %.4f", w0, w1)
	}
	a, b, c := make([]float32, 4), make([]float32, 4), make([]float32, 4)
	tab.Embed("the car", a)
	tab.Embed("an automobile", b)
	tab.Embed("the bank", c)
	dot := func(x, y []float32) float32 { return x[0]*y[0] + x[1]*y[1] + x[2]*y[2] + x[3]*y[3] }
	if math.Abs(float64(dot(a, a))-1) > 1e-5 {
		t.Fatalf("not unit length: %v", a)
	}
	if math.Abs(float64(a[0])) > 1e-5 {
		t.Fatalf("common component not removed: %v", a)
	}
	if dot(a, b) <= dot(a, c) {
		t.Fatalf("car~automobile %.3f ≤ car~bank %.3f", dot(a, b), dot(a, c))
	}
}

func TestDecodeRejects(t *testing.T) {
	_, data := testTable(t)
	for _, cut := range []int{0, 3, 23, 40, len(data) - 1} {
		if _, err := Decode(data[:cut]); !errors.Is(err, ErrFormat) {
			t.Fatalf("cut at %d: %v", cut, err)
		}
	}
	bad := append([]byte(nil), data...)
	bad[0] = 'X'
	if _, err := Decode(bad); !errors.Is(err, ErrFormat) {
		t.Fatalf("bad magic: %v", err)
	}
}

func FuzzDecode(f *testing.F) {
	_, data := testTable(f)
	f.Add(data)
	f.Add([]byte("CXWV"))
	white := &Table{Dim: 2, Vocab: 10, SIFA: 1e-3, Words: []string{"a", "b"}, Ranks: []uint32{1, 2},
		Mean0: []float32{0.5, 0}, W: []float32{2, 0, 0, 1}}
	if d2, err := Encode(white, [][]float32{{1, 0}, {0, 1}}); err == nil {
		f.Add(d2)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tab, err := Decode(data)
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error %v does not wrap ErrFormat", err)
			}
			return
		}
		v := make([]float32, tab.Dim)
		tab.Embed("the car xyz", v)
	})
}

func FuzzTokens(f *testing.F) {
	f.Add("The Car's engine didn't start")
	f.Add("’'’x'y'z")
	f.Fuzz(func(t *testing.T, s string) {
		Tokens(s, func(tok string) {
			if tok == "" || strings.ContainsAny(tok, "' \t\n") {
				t.Fatalf("bad token %q from %q", tok, s)
			}
		})
	})
}

// tokensOracle is the first tokenizer (through []rune and
// strings.ToLower), kept as the oracle of the allocation-free scan.
func tokensOracle(text string, fn func(tok string)) {
	rs := []rune(text)
	isWord := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) }
	isApos := func(r rune) bool { return r == '\'' || r == '\u2019' }
	for i := 0; i < len(rs); {
		if !isWord(rs[i]) {
			i++
			continue
		}
		j := i
		for j < len(rs) && (isWord(rs[j]) || (isApos(rs[j]) && j+1 < len(rs) && unicode.IsLetter(rs[j+1]) && j > i && unicode.IsLetter(rs[j-1]))) {
			j++
		}
		word := strings.ToLower(strings.ReplaceAll(string(rs[i:j]), "\u2019", "'"))
		i = j
		if !strings.ContainsRune(word, '\'') {
			fn(word)
			continue
		}
		contraction(word, fn)
	}
}

func FuzzTokensOracle(f *testing.F) {
	for _, s := range []string{"Can't won't rock'n'roll", "L’Été d'Ünïcode 42x", "a\xffb'c", "ǅemal İstanbul ΣΑΣ", "x'1 'quoted' it's", "é́́a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var got, want []string
		Tokens(s, func(tok string) { got = append(got, tok) })
		tokensOracle(s, func(tok string) { want = append(want, tok) })
		if strings.Join(got, "|") != strings.Join(want, "|") || len(got) != len(want) {
			t.Fatalf("Tokens(%q) = %q, oracle %q", s, got, want)
		}
	})
}

func BenchmarkMean(b *testing.B) {
	tab := &Table{Dim: 4, Vocab: 100, SIFA: 1e-3, PC: []float32{1, 0, 0, 0},
		Words: []string{"the", "car", "engine"}, Ranks: []uint32{0, 10, 50}}
	data, err := Encode(tab, [][]float32{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}})
	if err != nil {
		b.Fatal(err)
	}
	dt, err := Decode(data)
	if err != nil {
		b.Fatal(err)
	}
	text := strings.Repeat("The car's Engine would not start; the ENGINE failed in Zürich. ", 30)
	out := make([]float32, 4)
	b.ReportAllocs()
	for b.Loop() {
		clear(out)
		dt.Mean(text, out)
	}
}

// The vocabulary finds every word of a decoded table by string and by
// bytes without allocating, and nothing else (oracle: the table's words).
func TestVocabLookup(t *testing.T) {
	tab, _ := testTable(t)
	for i, w := range []string{"the", "car", "automobile", "bank"} {
		if tab.Lookup(w) != i || find(tab.vocab, []byte(w)) != i || tab.Word(i) != w {
			t.Fatalf("word %d %q: Lookup %d, Word %q", i, w, tab.Lookup(w), tab.Word(i))
		}
	}
	for _, w := range []string{"", "ca", "cars", "Car", "thebank"} {
		if tab.Lookup(w) != -1 {
			t.Fatalf("Lookup(%q) = %d, want -1", w, tab.Lookup(w))
		}
	}
	tok := []byte("automobile")
	if n := testing.AllocsPerRun(100, func() { _ = find(tab.vocab, tok) }); n != 0 {
		t.Fatalf("a lookup by bytes allocates %.0f times", n)
	}
}

// TestVector: a word's dequantised vector is what its one-word text adds
// to Mean divided by its SIF weight, and the quantisation error is within
// half a step of the encoded vector.
func TestVector(t *testing.T) {
	tab, _ := testTable(t)
	want := []float32{0.2, 1, 0.5, 0}
	got, mean := make([]float32, 4), make([]float32, 4)
	tab.Vector(1, got)
	tab.Mean("car", mean)
	for k := range got {
		if math.Abs(float64(got[k]-want[k])) > 0.5/127 {
			t.Fatalf("Vector(car) = %v, want %v", got, want)
		}
		if math.Abs(float64(got[k]*tab.Weight(1)-mean[k])) > 1e-6 {
			t.Fatalf("Vector(car)·weight = %v, Mean = %v", got, mean)
		}
	}
}

// TestEmbedKnown: an unknown token adds nothing to EmbedKnown (Embed gives
// it a hashed direction), and a text of unknown tokens embeds to zero.
func TestEmbedKnown(t *testing.T) {
	tab, _ := testTable(t)
	a, b, c := make([]float32, 4), make([]float32, 4), make([]float32, 4)
	tab.EmbedKnown("the car", a)
	tab.EmbedKnown("the zyxwv car qqq", b)
	for k := range a {
		if math.Abs(float64(a[k]-b[k])) > 1e-6 {
			t.Fatalf("unknown tokens changed the vector: %v vs %v", a, b)
		}
	}
	tab.Embed("the zyxwv car qqq", c)
	same := true
	for k := range a {
		same = same && math.Abs(float64(a[k]-c[k])) < 1e-6
	}
	if same {
		t.Fatal("Embed ignored the unknown tokens too")
	}
	for _, s := range []string{"zyxwv qqq", "", "  ,; "} {
		tab.EmbedKnown(s, c)
		for _, x := range c {
			if x != 0 {
				t.Fatalf("EmbedKnown(%q) = %v, want zero", s, c)
			}
		}
	}
}

// TestEmbedPair: EmbedPair equals Embed on t and EmbedKnown on u, and
// SameWords tells tables of the same words from others.
func TestEmbedPair(t *testing.T) {
	tab, _ := testTable(t)
	u := &Table{Dim: 3, Vocab: 100, SIFA: 1e-3, Words: []string{"the", "car", "automobile", "bank"}, Ranks: []uint32{0, 50, 80, 60}}
	data, err := Encode(u, [][]float32{{1, 2, 3}, {0, 1, 0}, {0, 0.9, 0.2}, {5, 0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if u, err = Decode(data); err != nil {
		t.Fatal(err)
	}
	if !tab.SameWords(u) || !u.SameWords(tab) {
		t.Fatal("SameWords false for the same words")
	}
	other := &Table{Dim: 3, Vocab: 100, SIFA: 1e-3, Words: []string{"the", "bank", "automobile", "car"}, Ranks: []uint32{0, 60, 80, 50}}
	if data, err = Encode(other, [][]float32{{1, 2, 3}, {5, 0, 1}, {0, 0.9, 0.2}, {0, 1, 0}}); err != nil {
		t.Fatal(err)
	}
	if other, err = Decode(data); err != nil || tab.SameWords(other) {
		t.Fatalf("SameWords true for another order (%v)", err)
	}
	for _, s := range []string{"the car", "an automobile near the bank", "zzz qqq", "", "the zzz car"} {
		a, b := make([]float32, 4), make([]float32, 3)
		wa, wb := make([]float32, 4), make([]float32, 3)
		tab.EmbedPair(u, s, a, b)
		tab.Embed(s, wa)
		u.EmbedKnown(s, wb)
		for k := range a {
			if a[k] != wa[k] {
				t.Fatalf("%q: pair %v, Embed %v", s, a, wa)
			}
		}
		for k := range b {
			if b[k] != wb[k] {
				t.Fatalf("%q: pair %v, EmbedKnown %v", s, b, wb)
			}
		}
	}
}
