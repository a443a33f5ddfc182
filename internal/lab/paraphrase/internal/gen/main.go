// Command gen writes the paraphrase set's distractors: paragraphs of the
// package documentation of the Go standard library (BSD licence, see
// testdata/paraphrase/NOTICE), real technical prose an agent's memory may
// sit beside. It is deterministic for one Go release: files are visited in
// lexical order and every k-th eligible paragraph is kept.
//
//	go run ./internal/lab/paraphrase/internal/gen -n 450 -out testdata/paraphrase/distractors.txt
package main

import (
	"flag"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/contextd/contextd/internal/goroot"
)

func main() {
	root := flag.String("goroot", goroot.Dir(), "Go installation whose src is read")
	n := flag.Int("n", 450, "paragraphs to keep")
	out := flag.String("out", "testdata/paraphrase/distractors.txt", "output, one paragraph a line")
	flag.Parse()
	paras, err := collect(filepath.Join(*root, "src"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	if len(paras) < *n {
		fmt.Fprintf(os.Stderr, "gen: only %d eligible paragraphs\n", len(paras))
		os.Exit(1)
	}
	var b strings.Builder
	step := float64(len(paras)) / float64(*n)
	for i := 0; i < *n; i++ {
		b.WriteString(paras[int(float64(i)*step)])
		b.WriteByte('\n')
	}
	if err := os.WriteFile(*out, []byte(b.String()), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	fmt.Printf("wrote %s: %d of %d paragraphs (%s)\n", *out, *n, len(paras), runtime.Version())
}

// collect returns the eligible paragraphs of every package comment under
// src, in file order, without duplicates.
func collect(src string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "vendor") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil || f.Doc == nil {
			return nil
		}
		for _, p := range paragraphs(f.Doc.Text()) {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
		return nil
	})
	return out, err
}

// paragraphs splits a doc comment at blank lines and keeps prose: no
// indented code, headings or licence lines, 150 to 800 bytes, joined on
// one line.
func paragraphs(doc string) []string {
	var out []string
	for _, block := range strings.Split(doc, "\n\n") {
		lines := strings.Split(strings.Trim(block, "\n"), "\n")
		prose := true
		for _, l := range lines {
			if strings.HasPrefix(l, "\t") || strings.HasPrefix(l, " ") || strings.HasPrefix(l, "#") ||
				strings.Contains(l, "Copyright") || strings.HasPrefix(l, "- ") || strings.HasPrefix(l, "Code generated") {
				prose = false
				break
			}
		}
		p := strings.Join(strings.Fields(strings.Join(lines, " ")), " ")
		if prose && len(p) >= 150 && len(p) <= 800 {
			out = append(out, p)
		}
	}
	return out
}
