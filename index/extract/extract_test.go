package extract

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/contextd/contextd/cerrors"
)

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// handbookLines are the lines every rendering of handbook.* must hold,
// in this order.
var handbookLines = []string{
	"Field Handbook",
	"The quarterly calibration of the anemometer happens every March.",
	"Safety rules",
	"Never climb the mast alone. Café staff keep the spare keys — ask at the counter.",
	"Zermatt",
	"Last paragraph about the réseau of sensors.",
}

func inOrder(t *testing.T, text string, want []string) {
	t.Helper()
	at := 0
	for _, w := range want {
		i := strings.Index(text[at:], w)
		if i < 0 {
			t.Fatalf("%q missing (or out of order) in:\n%s", w, text)
		}
		at += i + len(w)
	}
}

func TestLibreOfficeFixtures(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		file   string
		format Format
		want   []string
		title  string
		meta   map[string]string
	}{
		{"handbook.pdf", PDF, append([]string{"--- Page 1 ---"}, handbookLines...), "", map[string]string{"pages": "1"}},
		{"handbook.docx", DOCX, append([]string{"# Field Handbook", "## Safety rules", "Station | Altitude", "Zermatt | 1608 m"}, handbookLines[5]), "Field Handbook", nil},
		{"handbook.html", HTML, append([]string{"# Field Handbook", "## Safety rules", "Station | Altitude", "Zermatt | 1608 m"}, handbookLines[5]), "Field Handbook", nil},
		{"slides.pptx", PPTX, []string{"--- Slide 1 ---\nQuarterly review\nRevenue grew in the northern region.\nHiring paused until June.",
			"--- Slide 2 ---\nNext steps\nCalibrate the anemometer fleet."}, "", map[string]string{"slides": "2"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			start := time.Now()
			doc, err := File(ctx, "testdata/"+tc.file, Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d bytes of text in %s", tc.file, len(doc.Text), time.Since(start))
			if doc.Format != tc.format {
				t.Errorf("format %q, want %q", doc.Format, tc.format)
			}
			inOrder(t, doc.Text, tc.want)
			if tc.format != PPTX && tc.format != DOCX && tc.format != HTML {
				inOrder(t, doc.Text, handbookLines)
			}
			if tc.title != "" && doc.Title != tc.title {
				t.Errorf("title %q, want %q", doc.Title, tc.title)
			}
			for k, v := range tc.meta {
				if doc.Meta[k] != v {
					t.Errorf("meta %s = %q, want %q", k, doc.Meta[k], v)
				}
			}
			if doc.Text != strings.TrimSpace(doc.Text) {
				t.Error("text not trimmed")
			}
		})
	}
}

func TestTextFormats(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, in, want, title string
		meta                  map[string]string
	}{
		{"a.md", "\ufeff```\n# not a title\n```\n# Real *title* #\r\nbody\r\n", "```\n# not a title\n```\n# Real *title* #\nbody", "Real *title*", nil},
		{"notes.txt", "caf\xe9 cr\xe8me\n", "café crème", "", nil}, // Windows-1252
		{"main.go", "package main\n", "package main", "", map[string]string{"language": "go"}},
		{"Makefile", "all:\n\tgo build\n", "all:\n\tgo build", "", map[string]string{"language": "makefile"}},
		{"t.csv", "a;b;c\n1;2;3\n", "a;b;c\n1;2;3", "", map[string]string{"delimiter": ";", "records": "2"}},
		{"t.tsv", "a,b\tc\n", "a,b\tc", "", map[string]string{"delimiter": "\t"}},
		{"d.json", `{"a": [1, 2]}`, `{"a": [1, 2]}`, "", map[string]string{"values": "1"}},
		{"d.jsonl", "{\"a\":1}\n{\"a\":2}\n", "{\"a\":1}\n{\"a\":2}", "", map[string]string{"values": "2"}},
		{"u16.txt", "\xff\xfeh\x00i\x00", "hi", "", nil},
		{"tsconfig.json", "{\n  // options\n  \"a\": \"x//y\", /* b */ \"c\": [1, 2,],\n}", "{\n  // options\n  \"a\": \"x//y\", /* b */ \"c\": [1, 2,],\n}", "",
			map[string]string{"values": "1", "dialect": "jsonc"}},
	} {
		doc, err := Bytes(ctx, tc.name, []byte(tc.in), Options{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if doc.Text != tc.want || doc.Title != tc.title {
			t.Errorf("%s: text %q title %q, want %q %q", tc.name, doc.Text, doc.Title, tc.want, tc.title)
		}
		for k, v := range tc.meta {
			if doc.Meta[k] != v {
				t.Errorf("%s: meta %s = %q, want %q", tc.name, k, doc.Meta[k], v)
			}
		}
	}
}

func TestHTMLRendering(t *testing.T) {
	in := `<html><head><title> The  Page </title><style>p{color:red}</style><script>alert("x")</script></head>
<body><nav>Home</nav><p>Hello <b>bold</b>
  world &amp; more</p><ul><li>one</li><li>two</li></ul><pre>  keep
    this</pre><p>x<br>y</p><noscript>hidden</noscript></body></html>`
	doc, err := Bytes(context.Background(), "p.html", []byte(in), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "Home\n\nHello bold world & more\n\n- one\n- two\n\n  keep\n    this\n\nx\ny"
	if doc.Text != want || doc.Title != "The Page" {
		t.Errorf("got %q title %q", doc.Text, doc.Title)
	}
}

// TestBrokenFiles: every broken or hostile file is an error of the right
// kind for that file, never a panic and never a partial text.
func TestBrokenFiles(t *testing.T) {
	ctx := context.Background()
	bomb := zipOf(t, map[string]string{"word/document.xml": strings.Repeat("<w:p/>", 1<<16)})
	for _, tc := range []struct {
		name string
		data []byte
		opt  Options
		want error
	}{
		{"corrupt.pdf", []byte("%PDF-1.4\n%corrupted"), Options{}, cerrors.ErrMalformed},
		{"fake.pdf", []byte("hello"), Options{}, cerrors.ErrMalformed},
		{"fake.docx", []byte("plain text, not a zip"), Options{}, cerrors.ErrMalformed},
		{"empty.pptx", zipOf(t, map[string]string{"x": "y"}), Options{}, cerrors.ErrMalformed},
		{"nodoc.docx", zipOf(t, map[string]string{"x": "y"}), Options{}, cerrors.ErrMalformed},
		{"bad.json", []byte(`{"a":`), Options{}, cerrors.ErrMalformed},
		{"bin.txt", []byte("ab\x00cd"), Options{}, cerrors.ErrUnsupported},
		{"image.png", []byte("\x89PNG"), Options{}, cerrors.ErrUnsupported},
		{"big.txt", bytes.Repeat([]byte("a"), 101), Options{MaxBytes: 100}, cerrors.ErrTooLarge},
		{"bomb.docx", bomb, Options{MaxBytes: int64(len(bomb)) + 1000}, cerrors.ErrTooLarge},
	} {
		doc, err := Bytes(ctx, tc.name, tc.data, tc.opt)
		if !errors.Is(err, tc.want) || doc != nil {
			t.Errorf("%s: %v (%v), want %v", tc.name, doc, err, tc.want)
		}
	}
}

func TestFileRefusesLargeBeforeReading(t *testing.T) {
	p := t.TempDir() + "/big.md"
	if err := os.WriteFile(p, bytes.Repeat([]byte("x"), 2048), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := File(context.Background(), p, Options{MaxBytes: 1024}); !errors.Is(err, cerrors.ErrTooLarge) {
		t.Fatalf("err %v", err)
	}
	if _, err := File(context.Background(), t.TempDir(), Options{}); !errors.Is(err, cerrors.ErrUnsupported) {
		t.Fatalf("directory: %v", err)
	}
}

// TestTimeout: an extraction past its timeout returns at the deadline with
// context.DeadlineExceeded, even when the parser keeps running.
func TestTimeout(t *testing.T) {
	slow := func(ctx context.Context, _ string, _ []byte, _ Options) (*Document, error) {
		time.Sleep(2 * time.Second) // not a wait: a parser that ignores ctx and runs long
		return &Document{}, nil
	}
	extractors["slow"] = slow
	defer delete(extractors, "slow")
	start := time.Now()
	_, err := As(context.Background(), "slow", "x", nil, Options{Timeout: 50 * time.Millisecond})
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > time.Second {
		t.Fatalf("err %v after %s", err, time.Since(start))
	}
}

func TestPanicIsMalformed(t *testing.T) {
	extractors["boom"] = func(context.Context, string, []byte, Options) (*Document, error) { panic("boom") }
	defer delete(extractors, "boom")
	if _, err := As(context.Background(), "boom", "x", nil, Options{}); !errors.Is(err, cerrors.ErrMalformed) {
		t.Fatalf("err %v", err)
	}
}

func TestForName(t *testing.T) {
	for name, want := range map[string]Format{
		"A.MD": Markdown, "x/y.Pdf": PDF, "r.docx": DOCX, "s.pptx": PPTX, "t.htm": HTML, "c.tsv": CSV,
		"j.ndjson": JSON, "p.py": Code, "README": Text, "notes.rst": Text,
	} {
		if f, ok := ForName(name); !ok || f != want {
			t.Errorf("%s: %q %v", name, f, ok)
		}
	}
	for _, name := range []string{"a.png", "b.exe", "noext", "c.doc"} {
		if f, ok := ForName(name); ok {
			t.Errorf("%s: %q", name, f)
		}
	}
}

func zipOf(t testing.TB, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range files {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
