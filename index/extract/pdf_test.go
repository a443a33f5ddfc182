package extract

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/contextd/contextd/index/extract/pdftest"
)

// buildPDF is a one-page PDF whose page shows content (a content stream)
// with font /F1, Helvetica with WinAnsiEncoding, plus fontExtra in its
// dictionary (a Widths array, say).
func buildPDF(content, fontExtra string) []byte {
	return pdfFile(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content)+1, content),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding "+fontExtra+">>",
	)
}

// pdfFile is pdftest.File.
var pdfFile = pdftest.File

// TestPDFLinesOfOneTextObject: lines and words that one text object (one
// BT ... ET) places by position come out separated. The library's
// GetPlainText ignored positioning and gave "Quarterly ReportThe zebra",
// so the word "Report" was not found.
func TestPDFLinesOfOneTextObject(t *testing.T) {
	// Widths of the WinAnsi codes 32..126 in Helvetica's metrics would
	// be exact; a flat 556 (the digits' width) is close enough.
	widths := "/FirstChar 32 /LastChar 126 /Widths [" + strings.Repeat("556 ", 95) + "] "
	for _, tc := range []struct {
		name, content, fontExtra, want string
	}{
		{"Td new line", "BT /F1 12 Tf 72 720 Td (Quarterly Report) Tj 0 -16 Td (The zebra crossed the quay.) Tj ET", "",
			"Quarterly Report\nThe zebra crossed the quay."},
		{"TD and T*", "BT /F1 12 Tf 72 720 Td (Quarterly Report) Tj 0 -14 TD (The zebra) Tj T* (Third line) Tj ET", "",
			"Quarterly Report\nThe zebra\nThird line"},
		{"quote operators", "BT /F1 12 Tf 14 TL 72 720 Td (Quarterly Report) Tj (The zebra) ' 1 0 (Third line) \" ET", "",
			"Quarterly Report\nThe zebra\nThird line"},
		{"Tm lines", "BT /F1 12 Tf 1 0 0 1 72 720 Tm (Quarterly Report) Tj 1 0 0 1 72 704 Tm (The zebra) Tj ET", "",
			"Quarterly Report\nThe zebra"},
		{"scaled text matrix", "BT /F1 1 Tf 12 0 0 12 72 720 Tm (Quarterly Report) Tj 0 -1.3 Td (The zebra) Tj ET", "",
			"Quarterly Report\nThe zebra"},
		{"word placed by Td", "BT /F1 12 Tf 72 720 Td (Quarterly) Tj 70 0 Td (Report) Tj ET", widths,
			"Quarterly Report"},
		{"word split by Td", "BT /F1 10 Tf 72 720 Td (Quar) Tj 22.24 0 Td (terly) Tj ET", widths,
			"Quarterly"},
		{"TJ word gap", "BT /F1 12 Tf 72 720 Td [(Quarterly) -333 (Report)] TJ ET", "",
			"Quarterly Report"},
		{"TJ kerning", "BT /F1 12 Tf 72 720 Td [(Qu) -20 (arterly) 15 ( Report)] TJ ET", "",
			"Quarterly Report"},
		{"space already shown", "BT /F1 12 Tf 72 720 Td (Quarterly ) Tj 90 0 Td (Report) Tj ET", widths,
			"Quarterly Report"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := Bytes(context.Background(), "q.pdf", buildPDF(tc.content, tc.fontExtra), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if want := "--- Page 1 ---\n" + tc.want; doc.Text != want {
				t.Errorf("text %q, want %q", doc.Text, want)
			}
		})
	}
}
