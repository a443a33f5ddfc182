// Package testcorpus owns the real text the tests and benchmarks of the
// module run on: the doc comments of the Go source tree ($GOROOT/src,
// present wherever Go is), extracted deterministically (files in lexical
// order; test files and testdata skipped). Paragraphs are runs of comment
// lines; sentences split them at '.', '!' or '?' followed by space.
//
//	docs, err := testcorpus.Paragraphs(10_000)
package testcorpus

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/contextd/contextd/internal/goroot"
)

var (
	once       sync.Once
	paragraphs []string
	walkErr    error
)

// all returns every doc-comment paragraph of the Go source tree, read
// once per process (tests share it).
func all() ([]string, error) {
	once.Do(func() { paragraphs, walkErr = walk(-1) })
	return paragraphs, walkErr
}

// walk reads the doc-comment paragraphs of the Go source tree, file by
// file in lexical order; with max >= 0 it stops after the file that
// brings the paragraphs of at least six words to max (all that
// firstParagraphs takes). The whole tree is about 2 s of CPU; the few
// hundred paragraphs a test asks for are in the first files.
func walk(max int) ([]string, error) {
	var out []string
	long := 0
	root := filepath.Join(goroot.Dir(), "src")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") || strings.Contains(p, "testdata") {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return nil
		}
		defer f.Close()
		var cur []string
		flush := func() {
			if len(cur) > 0 {
				p := strings.Join(cur, " ")
				out = append(out, p)
				if len(strings.Fields(p)) >= 6 {
					long++
				}
			}
			cur = cur[:0]
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			s := strings.TrimSpace(sc.Text())
			if t, ok := strings.CutPrefix(s, "//"); ok && !strings.HasPrefix(t, "go:") {
				if t = strings.TrimSpace(t); t != "" {
					cur = append(cur, t)
					continue
				}
			}
			flush()
		}
		flush()
		if max >= 0 && long >= max {
			return fs.SkipAll
		}
		return nil
	})
	return out, err
}

// Paragraphs returns the first max paragraphs of at least six words,
// reading only the files that hold them.
func Paragraphs(max int) ([]string, error) { return ReadParagraphs(max) }

// ReadParagraphs is Paragraphs: it keeps no process-wide copy, so a
// caller that drops the result frees it (contextd bench measures the
// memory of the server in its own process, which must not hold the
// corpus).
func ReadParagraphs(max int) ([]string, error) {
	out, err := ReadParagraphsUpTo(max)
	if err == nil && len(out) < max {
		return nil, fmt.Errorf("the Go source tree holds %d doc paragraphs, fewer than %d", len(out), max)
	}
	return out, err
}

// ReadParagraphsUpTo is ReadParagraphs without the error when the tree
// holds fewer than max: then it returns all of them (the whole tree
// walked once, for a caller that extends them, as contextd bench does).
func ReadParagraphsUpTo(max int) ([]string, error) {
	ps, err := walk(max)
	if err != nil {
		return nil, err
	}
	return firstParagraphs(ps, max), nil // ps and the shorter paragraphs are dropped
}

func firstParagraphs(ps []string, max int) []string {
	out := make([]string, 0, min(max, len(ps)))
	for _, p := range ps {
		if len(out) == max {
			break
		}
		if len(strings.Fields(p)) >= 6 {
			out = append(out, p)
		}
	}
	return out
}

var sentenceEnd = regexp.MustCompile(`[.!?]\s+`)

// Sentences returns the distinct sentences of at least five words, in
// walk order.
func Sentences() ([]string, error) {
	ps, err := all()
	if err != nil {
		return nil, err
	}
	return SentencesOf(ps), nil
}

// SentencesOf returns the distinct sentences of at least five words of
// ps, in order. They are substrings of ps: they keep ps's text reachable
// and add only their headers.
func SentencesOf(ps []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range ps {
		for _, s := range sentenceEnd.Split(p, -1) {
			s = strings.TrimSpace(s)
			if len(strings.Fields(s)) >= 5 && !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out
}
