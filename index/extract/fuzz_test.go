package extract

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/contextd/contextd/internal/testtier"
)

// Run a target with a short minimization budget: the default of 60 s per
// new input stalls the binary formats (their seeds are kilobytes), e.g.
//
//	go test ./index/extract -run '^$' -fuzz '^FuzzPDF$' -fuzztime 60s -fuzzminimizetime 50x
//
// Measured: about 13,000 PDF and 18,000 DOCX executions a second that way,
// against 5 in 40 s with the default.

// fuzzLimit bounds memory in the fuzz targets: every extractor must stay
// within MaxBytes of output whatever it is fed.
const fuzzLimit = 1 << 20

// fuzzExtractor runs the extractor of format directly (our own parsers
// must not panic: As's recover would hide it) or, for PDF, through As
// (the library's panics are expected and recovered). Every call must end
// well within the timeout and give either an error or valid, trimmed,
// bounded UTF-8 text.
func fuzzExtractor(f *testing.F, format Format, name string, seeds ...[]byte) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// The deadline is wall time, so it is generous: a call that never
		// ends still fails it, while one slowed by a loaded machine (at
		// load 30 a 0.2 s seed took over 5 s) does not. What a call costs
		// is bounded in CPU time instead, which the load does not stretch.
		opt := Options{MaxBytes: fuzzLimit, Timeout: 60 * time.Second}
		cpu0 := testtier.ProcessCPU()
		var (
			doc *Document
			err error
		)
		if format == PDF {
			doc, err = As(context.Background(), format, name, data, opt)
			if errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("pdf: no answer in %s", opt.Timeout)
			}
		} else {
			doc, err = extractors[format](context.Background(), name, data, opt)
		}
		if used := testtier.ProcessCPU() - cpu0; used > 3*time.Second {
			t.Fatalf("%s took %s of CPU on %d bytes", format, used, len(data))
		}
		if err != nil {
			return
		}
		if !utf8.ValidString(doc.Text) {
			t.Fatalf("%s: invalid UTF-8 output", format)
		}
		if len(doc.Text) > fuzzLimit {
			t.Fatalf("%s: %d bytes of text past the limit", format, len(doc.Text))
		}
	})
}

func seed(f *testing.F, name string) []byte {
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		f.Fatal(err)
	}
	return b
}

func FuzzPDF(f *testing.F) {
	fuzzExtractor(f, PDF, "f.pdf", seed(f, "handbook.pdf"), seed(f, "libreoffice/report.pdf"), cyclicPDF(), []byte("%PDF-1.4\n%corrupted"), []byte("%PDF-1.7\n1 0 obj<<>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF"))
}

func FuzzDOCX(f *testing.F) {
	fuzzExtractor(f, DOCX, "f.docx", seed(f, "handbook.docx"), seed(f, "libreoffice/report.docx"), zipOf(f, map[string]string{"word/document.xml": "<w:document/>"}))
}

func FuzzPPTX(f *testing.F) {
	fuzzExtractor(f, PPTX, "f.pptx", seed(f, "slides.pptx"), seed(f, "libreoffice/deck.pptx"))
}

func FuzzHTML(f *testing.F) {
	fuzzExtractor(f, HTML, "f.html", seed(f, "handbook.html"), []byte("<p>a<pre>b</p></pre><td>c<script>d"))
}

func FuzzMarkdown(f *testing.F) {
	fuzzExtractor(f, Markdown, "f.md", []byte("# T\n```\n# x\n"), []byte("\xff\xfe#\x00"))
}

func FuzzText(f *testing.F) {
	fuzzExtractor(f, Text, "f.txt", []byte("caf\xe9\r\n"), []byte("\xfe\xff\x00a\x00"))
}

func FuzzCode(f *testing.F) {
	fuzzExtractor(f, Code, "f.go", []byte("package main\n"))
}

func FuzzCSV(f *testing.F) {
	fuzzExtractor(f, CSV, "f.csv", []byte("a,b\n\"c\",d\n"), []byte("a;\"b\n"))
}

func FuzzJSON(f *testing.F) {
	fuzzExtractor(f, JSON, "f.json", []byte(`{"a":[1,2,{"b":null}]}`), []byte("1 2 3"), []byte(`{"a":`))
}
