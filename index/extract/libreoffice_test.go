package extract

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/contextd/contextd/cerrors"
)

// TestLibreOfficeLayoutB2 parses the documents LibreOffice made in
// testdata/libreoffice/ (see its README for the commands) and compares the
// whole text with the layout of the requirements (B2): PDF pages as
// "--- Page N ---" blocks, PPTX slides as "--- Slide N ---" blocks with
// one paragraph a line (an empty slide keeps its marker), DOCX one
// paragraph a line with table rows as "cell | cell".
func TestLibreOfficeLayoutB2(t *testing.T) {
	for _, tc := range []struct {
		file, title string
		meta        map[string]string
		want        string
	}{
		{"report.pdf", "Harbour Survey 2026", map[string]string{"pages": "2", "creator": "Writer"}, `--- Page 1 ---
Harbour Survey 2026
The survey measured water depth at forty points along the northern quay.
Findings
Silt has raised the seabed by thirty centimetres since the last dredging in 2019.
Crème brûlée was served at the café on the pier — the survey crew insisted.
Point
Depth (m)
Change
North-1
7.4
-0.3
North-2
6.9
-0.4

--- Page 2 ---
Recommendations
•
Dredge the northern berth before the autumn storms.
•
Repeat the survey every two years.
Approved by the harbour master, Zoë Lindqvist.`},
		{"report.docx", "Harbour Survey 2026", map[string]string{}, `# Harbour Survey 2026

The survey measured water depth at forty points along the northern quay.

## Findings

Silt has raised the seabed by thirty centimetres since the last dredging in 2019.

Crème brûlée was served at the café on the pier — the survey crew insisted.

Point | Depth (m) | Change
North-1 | 7.4 | -0.3
North-2 | 6.9 | -0.4

## Recommendations

Dredge the northern berth before the autumn storms.

Repeat the survey every two years.

Approved by the harbour master, Zoë Lindqvist.`},
		{"deck.pptx", "", map[string]string{"slides": "3"}, `--- Slide 1 ---
Harbour Survey 2026
Forty depth points along the northern quay.
Silt raised the seabed by thirty centimetres since 2019.

--- Slide 2 ---

--- Slide 3 ---
Recommendations
Dredge the northern berth before the autumn storms.
Zoë Lindqvist approves the plan.`},
	} {
		doc, err := File(context.Background(), "testdata/libreoffice/"+tc.file, Options{})
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		if doc.Text != tc.want {
			t.Errorf("%s text:\n%s\n--- want:\n%s", tc.file, doc.Text, tc.want)
		}
		if doc.Title != tc.title {
			t.Errorf("%s title %q, want %q", tc.file, doc.Title, tc.title)
		}
		for k, v := range tc.meta {
			if doc.Meta[k] != v {
				t.Errorf("%s meta %s = %q, want %q", tc.file, k, doc.Meta[k], v)
			}
		}
	}
}

// TestFiftyPagePDF: the ingestion benchmark's fixture gives 50 page
// blocks in order, each with its own marker word.
func TestFiftyPagePDF(t *testing.T) {
	doc, err := File(context.Background(), "testdata/libreoffice/fifty-pages.pdf", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Meta["pages"] != "50" {
		t.Fatalf("pages = %q", doc.Meta["pages"])
	}
	blocks := strings.Split(doc.Text, "\n\n--- Page ")
	if len(blocks) != 50 {
		t.Fatalf("%d page blocks, want 50", len(blocks))
	}
	for i, b := range blocks {
		if i == 0 {
			b = strings.TrimPrefix(b, "--- Page ")
		}
		head := fmt.Sprintf("%d ---\nSection %d\n", i+1, i+1)
		if !strings.HasPrefix(b, head) || !strings.Contains(b, fmt.Sprintf("page%02dmarker", i+1)) {
			t.Fatalf("page %d block starts %q", i+1, b[:min(len(b), 60)])
		}
	}
}

// TestCorruptOfficeFilesAreMalformed: broken and fake files of the three
// formats give ErrMalformed, never a panic or a partial document.
func TestCorruptOfficeFilesAreMalformed(t *testing.T) {
	pdf := fixture(t, "libreoffice/report.pdf")
	docx := fixture(t, "libreoffice/report.docx")
	pptx := fixture(t, "libreoffice/deck.pptx")
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"corrupt.pdf", []byte("%PDF-1.4\n%corrupted")},
		{"truncated.pdf", pdf[:len(pdf)/2]},
		{"fake.pdf", []byte("just some text pretending to be a PDF")},
		{"fake.docx", []byte("plain text, not a zip")},
		{"truncated.docx", docx[:len(docx)/2]},
		{"slides-as.docx", pptx},
		{"document-as.pptx", docx},
		{"truncated.pptx", pptx[:len(pptx)-100]},
		{"empty.pdf", nil},
	} {
		doc, err := Bytes(context.Background(), tc.name, tc.data, Options{})
		if !errors.Is(err, cerrors.ErrMalformed) || doc != nil {
			t.Errorf("%s: doc %v, err %v; want ErrMalformed", tc.name, doc != nil, err)
		}
	}
}

func BenchmarkExtractFiftyPagePDF(b *testing.B) {
	data := fixture(b, "libreoffice/fifty-pages.pdf")
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Bytes(context.Background(), "fifty-pages.pdf", data, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
